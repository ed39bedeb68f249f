/// Turns a topic written in the interviewee's voice into the interviewer's, word by word from a
/// table per language: "my grandmother's garden" becomes "your grandmother's garden", so that the
/// question reads "How has your grandmother's garden changed …?".
///
/// Only whole words from the table change. Quoted text ("…", “…”, „…“, «…», '…', ‘…’) is kept as
/// written; so is a word in capitals (`US`) and a capitalised pronoun inside a sentence, which is
/// taken for a name ("Our Lady of Guadalupe") unless the whole topic is in title case. A verb next
/// to a replaced subject agrees with it where the table names the pair ("I was" → "you were").
struct InterviewerVoice: Sendable {
    /// Each first-person word (lower case, straight apostrophe) and what the interviewer says
    /// instead, as written inside a sentence.
    var words: [String: String]
    /// Words written with a capital wherever they stand (English "I"): their capital says nothing.
    var alwaysCapitalized: Set<String> = []
    /// By subject: verbs beside it, on either side, and the form that agrees with the replacement.
    var verbs: [String: [String: String]] = [:]
    /// By subject: a verb ending after it, when `verbs` does not name the verb ("-ons" → "-ez").
    var verbEndings: [String: (ending: String, replacement: String)] = [:]
    /// Elided words glued to the next one (French "j'" in "j'ai"), and the word each stands for.
    var elisions: [String: String] = [:]
    /// Words replaced otherwise after one of some words (German "für uns" → "für Sie").
    var afterWords: [String: (previous: Set<String>, replacement: String)] = [:]
    /// Words that become the reflexive pronoun when one of their subjects came earlier
    /// (German "wie wir uns kennengelernt haben" → "wie Sie sich …").
    var reflexives: [String: (subjects: Set<String>, replacement: String)] = [:]
    /// Words replaced only at the start or after one of these words ("of mine", not "a coal mine").
    var onlyAfter: [String: Set<String>] = [:]
    /// Words kept as a numeral after one of these words as written ("World War I"), or after any
    /// capitalised word inside a sentence when no word follows ("Elizabeth I").
    var numerals: [String: Set<String>] = [:]

    /// The topic in the interviewer's voice.
    func rewrite(_ topic: String) -> String {
        let pieces = Self.pieces(of: topic)
        let titleCase = Self.isTitleCase(pieces)
        var output = pieces.map(\.text)
        var subjectsSeen: Set<String> = []
        for index in pieces.indices {
            guard case .word(let word) = pieces[index] else { continue }
            let key = Self.key(word)
            let replaced = replacement(at: index, in: pieces, key: key, seen: subjectsSeen, titleCase: titleCase)
            if let replacement = replaced {
                output[index] = Self.styled(replacement, like: word)
                agreeVerbs(around: index, subject: key, pieces: pieces, output: &output)
            }
            subjectsSeen.insert(key)
        }
        return output.joined()
    }

    /// What the word at `index` becomes, or `nil` to keep it.
    private func replacement(
        at index: Int, in pieces: [Piece], key: String, seen: Set<String>, titleCase: Bool
    ) -> String? {
        guard case .word(let word) = pieces[index] else { return nil }
        let previous = Self.adjacentWord(before: index, in: pieces)
        let position = Self.position(of: index, in: pieces)
        if let (prefix, subject) = elisions.first(where: { key.hasPrefix($0.key) && key.count > $0.key.count }),
            let pronoun = words[subject]
        {
            let rest = String(word.dropFirst(prefix.count))
            let verb = agreeing(rest, with: subject) ?? rest
            return written(pronoun, for: word, key: subject, position: position, titleCase: titleCase)
                .map { $0 + " " + verb }
        }
        guard var replacement = words[key] else { return nil }
        if let allowed = onlyAfter[key], position != .topicStart {
            guard let previous, allowed.contains(Self.key(previous)) else { return nil }
        }
        if let kept = numerals[key], let previous, word == word.uppercased() {
            if kept.contains(previous) { return nil }
            let capitalised = previous.first?.isUppercase == true
            let previousPosition = Self.position(of: index - 2, in: pieces)
            if capitalised, previousPosition == .inside, Self.adjacentWord(after: index, in: pieces) == nil {
                return nil
            }
        }
        if let reflexive = reflexives[key], !reflexive.subjects.isDisjoint(with: seen) {
            replacement = reflexive.replacement
        } else if let special = afterWords[key], let previous, special.previous.contains(Self.key(previous)) {
            replacement = special.replacement
        }
        return written(replacement, for: word, key: key, position: position, titleCase: titleCase)
    }

    /// The replacement as it is written where `word` stands, or `nil` when the word is kept:
    /// capitals (an acronym), or a capital inside a sentence that is not in title case (a name).
    private func written(
        _ replacement: String, for word: String, key: String, position: Position, titleCase: Bool
    ) -> String? {
        let letters = word.filter(\.isLetter)
        let capital = letters.first?.isUppercase == true
        if letters.count > 1, letters.allSatisfy(\.isUppercase), !alwaysCapitalized.contains(key) { return nil }
        if !capital { return replacement }
        if alwaysCapitalized.contains(key) {
            return position == .sentenceStart || titleCase ? Self.capitalized(replacement) : replacement
        }
        switch position {
        case .topicStart: return replacement
        case .sentenceStart: return Self.capitalized(replacement)
        case .inside: return titleCase ? Self.capitalized(replacement) : nil
        }
    }

    /// Makes the verbs beside a replaced subject agree with the replacement.
    private func agreeVerbs(around index: Int, subject: String, pieces: [Piece], output: inout [String]) {
        guard verbs[subject] != nil || verbEndings[subject] != nil else { return }
        // The verb after the subject, by table or ending; the one before it (a question's inverted
        // order, "was I"), by table only, since an ending before a subject is often a noun's.
        for (neighbour, byEnding) in [(index + 2, true), (index - 2, false)] {
            guard neighbour >= 0, neighbour < pieces.count, case .word(let verb) = pieces[neighbour],
                Self.isAdjacent(neighbour, index, in: pieces), words[Self.key(verb)] == nil,
                let agreed = agreeing(verb, with: subject, byEnding: byEnding)
            else { continue }
            output[neighbour] = Self.styled(agreed, like: verb)
        }
    }

    /// `verb` in the form that agrees with `subject`'s replacement, or `nil` when the table has none.
    private func agreeing(_ verb: String, with subject: String, byEnding: Bool = true) -> String? {
        let key = Self.key(verb)
        var agreed = verbs[subject]?[key]
        if agreed == nil, byEnding, let rule = verbEndings[subject], key.hasSuffix(rule.ending),
            key.count > rule.ending.count
        {
            agreed = String(key.dropLast(rule.ending.count)) + rule.replacement
        }
        guard let agreed else { return nil }
        return verb.first?.isUppercase == true ? Self.capitalized(agreed) : agreed
    }
}

extension InterviewerVoice {
    /// A word, the text between words, or a quotation kept whole.
    enum Piece: Equatable {
        case word(String)
        case gap(String)
        case quoted(String)

        var text: String {
            switch self {
            case .word(let text), .gap(let text), .quoted(let text): text
            }
        }
    }

    /// Where a word stands: first in the topic (which is read inside a question), first after a
    /// full stop, or inside a sentence.
    enum Position {
        case topicStart
        case sentenceStart
        case inside
    }

    /// Opening quotation marks and the mark that closes each.
    private static let closingQuotes: [Character: Character] = [
        "\"": "\"", "“": "”", "„": "“", "«": "»", "‹": "›", "'": "'", "‘": "’", "「": "」",
    ]

    /// The topic cut into words, gaps and quotations. A word is a run of letters and digits, with
    /// an apostrophe or hyphen between two of them kept inside ("grandmother's", "moi-même").
    static func pieces(of text: String) -> [Piece] {
        let characters = Array(text)
        var pieces: [Piece] = []
        var gap = ""
        var index = 0
        func flushGap() {
            if !gap.isEmpty { pieces.append(.gap(gap)) }
            gap = ""
        }
        while index < characters.count {
            let character = characters[index]
            if let end = quotationEnd(opening: index, in: characters) {
                flushGap()
                pieces.append(.quoted(String(characters[index...end])))
                index = end + 1
            } else if isWordCharacter(character) {
                flushGap()
                var end = index + 1
                while end < characters.count {
                    if isWordCharacter(characters[end]) {
                        end += 1
                    } else if "'’-‐".contains(characters[end]), end + 1 < characters.count,
                        isWordCharacter(characters[end + 1])
                    {
                        end += 2
                    } else {
                        break
                    }
                }
                pieces.append(.word(String(characters[index..<end])))
                index = end
            } else {
                gap.append(character)
                index += 1
            }
        }
        flushGap()
        return pieces
    }

    /// Where the quotation opened at `index` closes, when a quotation opens there: an opening mark
    /// at the start of a word, and its closing mark later (for an apostrophe-like mark, one that
    /// ends a word, so "mom's" inside '…' does not close it).
    private static func quotationEnd(opening index: Int, in characters: [Character]) -> Int? {
        guard let closing = closingQuotes[characters[index]] else { return nil }
        if index > 0 {
            let before = characters[index - 1]
            guard before.isWhitespace || "([{/-–—".contains(before) || closingQuotes[before] != nil else { return nil }
        }
        let apostropheLike = closing == "'" || closing == "’"
        var end = index + 1
        while end < characters.count {
            if characters[end] == closing, end > index + 1 {
                let endsWord = end + 1 == characters.count || !characters[end + 1].isLetter
                if !apostropheLike || (endsWord && !characters[end - 1].isWhitespace) { return end }
            }
            end += 1
        }
        return nil
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber
    }

    /// Whether the topic reads as a title: at least two words of four letters or more outside
    /// quotations, every one of them capitalised.
    static func isTitleCase(_ pieces: [Piece]) -> Bool {
        var long = 0
        for case .word(let word) in pieces where word.filter(\.isLetter).count >= 4 {
            guard word.first?.isUppercase == true else { return false }
            long += 1
        }
        return long >= 2
    }

    /// Where the word at `index` stands.
    static func position(of index: Int, in pieces: [Piece]) -> Position {
        var before = index - 1
        while before >= 0 {
            switch pieces[before] {
            case .word, .quoted: return .inside
            case .gap(let text):
                if text.contains(where: { ".!?…".contains($0) }) { return .sentenceStart }
            }
            before -= 1
        }
        return .topicStart
    }

    /// The word just before `index`, with only spaces between.
    static func adjacentWord(before index: Int, in pieces: [Piece]) -> String? {
        guard index >= 2, case .word(let word) = pieces[index - 2], isAdjacent(index - 2, index, in: pieces) else {
            return nil
        }
        return word
    }

    /// The word just after `index`, with only spaces between.
    static func adjacentWord(after index: Int, in pieces: [Piece]) -> String? {
        guard index + 2 < pieces.count, case .word(let word) = pieces[index + 2],
            isAdjacent(index, index + 2, in: pieces)
        else { return nil }
        return word
    }

    /// Whether two words two pieces apart have only spaces between them.
    static func isAdjacent(_ first: Int, _ second: Int, in pieces: [Piece]) -> Bool {
        let between = pieces[min(first, second) + 1]
        guard case .gap(let text) = between else { return false }
        return text.allSatisfy { $0 == " " || $0 == "\u{00A0}" }
    }

    /// How a word is looked up: lower case, with a typographic apostrophe made straight.
    static func key(_ word: String) -> String {
        String(word.lowercased().map { $0 == "’" ? "'" : $0 })
    }

    /// The replacement with the word's apostrophes (a typographic one stays typographic).
    static func styled(_ replacement: String, like word: String) -> String {
        word.contains("’") ? String(replacement.map { $0 == "'" ? "’" : $0 }) : replacement
    }

    static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
