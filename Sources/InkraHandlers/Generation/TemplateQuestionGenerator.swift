#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The default question generator: offline, deterministic for a topic, count, length, language
/// and seed, drawing on a bank of interview questions in six categories and arranging them the
/// way an interview flows — an opening first, background, turning points and feelings in the
/// middle, lessons or the future to close. Never the same question twice in one answer.
public struct TemplateQuestionGenerator: QuestionGenerator {
    /// The seed every selection starts from.
    public let seed: UInt64

    /// A generator with a seed.
    public init(seed: UInt64 = 0) {
        self.seed = seed
    }

    public func questions(for request: QuestionRequest) async throws -> [String] {
        questions(request)
    }

    /// The questions for a request, synchronously.
    public func questions(_ request: QuestionRequest) -> [String] {
        let topic = Self.cleaned(request.topic)
        let bank = QuestionBank.forLanguage(request.language)
        var random = SeededGenerator(
            seed: SeededGenerator.mix(
                seed, [topic, String(request.count), request.length.rawValue, request.language ?? ""])
        )
        // Each category's templates in a seeded order, in `allCases` order (the order the seed is
        // drawn in), kept by the category's position. The positions are shuffled rather than the
        // templates: the same permutation, without copying and releasing every template.
        let categories = QuestionCategory.allCases
        var orders = bank.pools.map { pool in
            var order = Array(pool.indices)
            order.shuffle(using: &random)
            return order
        }
        var chosen: [String] = []
        for category in Self.arc(count: request.count, length: request.length, using: &random) {
            let position = categories.firstIndex(of: category) ?? 0
            if let index = orders[position].popLast() {
                chosen.append(Self.fill(bank.pools[position][index], topic: topic))
            } else if let spare = orders.firstIndex(where: { !$0.isEmpty }), let index = orders[spare].popLast() {
                chosen.append(Self.fill(bank.pools[spare][index], topic: topic))
            }
        }
        return chosen
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
        "My", "The", "A", "An", "Our", "Your", "His", "Her", "Their", "Learning", "Starting", "Moving", "Being",
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
