/// The default question generator: offline, deterministic for a topic, count, length, language,
/// turn and seed, drawing on a bank of interview questions in six categories and arranging them
/// the way an interview flows — an opening first, background, turning points and feelings in the
/// middle, lessons or the future to close. Never the same question twice in one answer.
///
/// The topic is put in the interviewer's voice ("my first job" → "your first job",
/// `InterviewerVoice`). Each category's templates are split, once per seed and language, into
/// two halves: even turns draw from one and odd turns from the other, so two consecutive answers
/// to one asker share no question, whatever their topics, as long as one half holds the answer
/// (every count in English, up to 12 in the other languages); within a half, the topic and the
/// turn choose where to start, so answers two turns apart move on as well.
public struct TemplateQuestionGenerator: QuestionGenerator {
    /// The seed every selection starts from.
    package let seed: UInt64

    /// A generator with a seed.
    public init(seed: UInt64 = 0) {
        self.seed = seed
    }

    public func questions(for request: QuestionRequest) async throws -> [String] {
        questions(request)
    }

    /// The questions for a request, synchronously.
    package func questions(_ request: QuestionRequest) -> [String] {
        let cleaned = Self.cleaned(request.topic)
        let topic = InterviewerVoice.forLanguage(request.language).rewrite(cleaned)
        let bank = QuestionBank.forLanguage(request.language)
        let language = request.language ?? ""
        let turn = UInt64(request.turn.magnitude)
        var random = SeededGenerator(
            seed: SeededGenerator.mix(
                seed, [cleaned, String(request.count), request.length.rawValue, language, String(turn)])
        )
        let arc = Self.arc(count: request.count, length: request.length, using: &random)
        let categories = QuestionCategory.allCases
        var demand = [Int](repeating: 0, count: categories.count)
        for category in arc { demand[categories.firstIndex(of: category) ?? 0] += 1 }
        // Each category's template positions in a seeded order (the same for every topic and
        // turn), cut into halves. This turn's half, started where the topic and turn say, comes
        // first; the other half is the last resort. Positions are popped from the end, so each
        // list is kept reversed.
        var halves = SeededGenerator(seed: SeededGenerator.mix(seed, [language]))
        let offset = SeededGenerator.mix(0, [cleaned])
        var first: [[Int]] = []
        var last: [[Int]] = []
        for (position, pool) in bank.pools.enumerated() {
            var order = Array(pool.indices)
            order.shuffle(using: &halves)
            let middle = (order.count + 1) / 2
            var mine = Array(turn % 2 == 0 ? order[..<middle] : order[middle...])
            let other = Array(turn % 2 == 0 ? order[middle...] : order[..<middle])
            if !mine.isEmpty {
                let size = UInt64(mine.count)
                let moved: UInt64 = (turn / 2 % size) * UInt64(demand[position])
                let start = Int((offset % size + moved) % size)
                mine = Array(mine[start...]) + Array(mine[..<start])
            }
            first.append(mine.reversed())
            last.append(other.reversed())
        }
        var chosen: [String] = []
        for category in arc {
            let position = categories.firstIndex(of: category) ?? 0
            guard let (pool, index) = Self.take(from: position, &first) ?? Self.take(from: position, &last) else {
                continue
            }
            chosen.append(Self.fill(bank.pools[pool][index], topic: topic))
        }
        return chosen
    }

    /// A template position from `position`'s list, or from the first list with one left.
    private static func take(from position: Int, _ lists: inout [[Int]]) -> (pool: Int, index: Int)? {
        if let index = lists[position].popLast() { return (position, index) }
        guard let spare = lists.firstIndex(where: { !$0.isEmpty }), let index = lists[spare].popLast() else {
            return nil
        }
        return (spare, index)
    }

    /// The categories of an interview of `count` questions, in order.
    static func arc(count: Int, length: QuestionLength, using random: inout SeededGenerator) -> [QuestionCategory] {
        guard count > 0 else { return [] }
        guard count > 1 else { return [.opening] }
        let closing: QuestionCategory = Bool.random(using: &random) ? .lessons : .future
        guard count > 2 else { return [.opening, .feelings] }
        var middle: [QuestionCategory] = []
        let cycle: [QuestionCategory] =
            switch length {
            case .short: [.background, .feelings, .turningPoints]
            case .medium: [.background, .turningPoints, .feelings]
            case .long: [.background, .turningPoints, .feelings, .turningPoints, .feelings]
            }
        var extras: [QuestionCategory] = [closing == .lessons ? .future : .lessons, .opening, .lessons, .future]
        while middle.count < count - 2 {
            if middle.count >= 9, !extras.isEmpty, middle.count % 3 == 0 {
                middle.append(extras.removeFirst())
            } else {
                middle.append(cycle[middle.count % cycle.count])
            }
        }
        return [.opening] + middle + [closing]
    }

    /// First words that read in lower case inside a question.
    private static let ordinaryFirstWords: Set<String> = [
        "My", "The", "A", "An", "Our", "Your", "You", "His", "Her", "Their", "Learning", "Starting", "Moving", "Being",
        "Growing", "Working", "Becoming", "Raising", "Leaving", "Building", "Losing", "Finding", "Living",
    ]

    /// The topic as it reads inside a question: trimmed, without closing punctuation, and with a
    /// leading capital lowered when it starts with an ordinary word ("My first job" → "my first job").
    static func cleaned(_ topic: String) -> String {
        var text = topic.trimmingWhitespace()
        while let last = text.last, ".?!;:".contains(last) { text.removeLast() }
        text = text.trimmingWhitespace()
        let firstWord = text.prefix { !$0.isWhitespace }
        if ordinaryFirstWords.contains(String(firstWord)) {
            text = text.prefix(1).lowercased() + text.dropFirst()
        }
        return text.isEmpty ? topic : text
    }

    /// The template with every `{topic}` replaced, by a byte scan (Foundation's and the string
    /// processing library's replacements each cost more than the rest of the generator). The text
    /// between placeholders is copied a run at a time.
    static func fill(_ template: String, topic: String) -> String {
        var template = template
        return template.withUTF8 { bytes in
            var filled: [UInt8] = []
            filled.reserveCapacity(bytes.count + topic.utf8.count)
            var copied = 0
            var index = 0
            while let open = bytes[index...].firstIndex(of: placeholder[0]) {
                let end = open + placeholder.count
                if end <= bytes.count, bytes[open..<end].elementsEqual(placeholder) {
                    filled.append(contentsOf: bytes[copied..<open])
                    filled.append(contentsOf: topic.utf8)
                    copied = end
                    index = end
                } else {
                    index = open + 1
                }
            }
            filled.append(contentsOf: bytes[copied...])
            return String(decoding: filled, as: UTF8.self)
        }
    }

    private static let placeholder = Array("{topic}".utf8)
}
