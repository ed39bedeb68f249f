import InkraJSON

/// The body of `generateQuestions`, validated: every refusal names the field.
package struct QuestionsBody {
    /// The most characters (grapheme clusters) a topic may have, after trimming.
    package static let maximumTopicCharacters = 500
    /// The most UTF-8 bytes a topic may have, after trimming: 500 characters of up to four bytes each.
    package static let maximumTopicBytes = 2_000
    /// The questions one request may ask for.
    package static let countRange = 1...20
    /// The characters a language tag may have, after trimming.
    package static let languageCharacters = 1...35

    /// Whether `text` has the shape of a BCP 47 language tag (RFC 5646, section 2.1): a primary
    /// subtag of 2 to 8 ASCII letters, then subtags of 1 to 8 ASCII letters or digits, each after
    /// a hyphen (`en`, `es-MX`, `zh-Hant-TW`, `sr-Latn`); at most 35 characters. Nothing else
    /// reaches the model's prompt: no space, punctuation or instruction.
    package static func isLanguageTag(_ text: String) -> Bool {
        guard languageCharacters.contains(text.utf8.count) else { return false }
        let subtags = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard let primary = subtags.first, (2...8).contains(primary.count),
            primary.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) })
        else { return false }
        return subtags.dropFirst().allSatisfy { subtag in
            (1...8).contains(subtag.count)
                && subtag.allSatisfy {
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                }
        }
    }

    var topic: String
    var count: Int
    var length: QuestionLength
    var language: String?

    var questionRequest: QuestionRequest {
        QuestionRequest(topic: topic, count: count, length: length, language: language)
    }

    /// Checks a request's body.
    /// - Throws: 400 `invalid_request` naming the member that is wrong.
    package init(_ bytes: [UInt8]?) throws(HTTPError) {
        guard let bytes, !bytes.isEmpty else {
            throw HTTPError.badRequest("body is required: a JSON object with topic")
        }
        guard bytes.count <= GenerateQuestions.maximumBodySize else {
            throw HTTPError(
                .invalidRequest,
                "body is \(bytes.count) bytes; at most \(GenerateQuestions.maximumBodySize) bytes are accepted"
            )
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes, maximumDepth: 64)
        } catch {
            throw HTTPError.badRequest("body is not valid JSON: \(error)")
        }
        guard let object = json.object else {
            throw HTTPError.badRequest("body must be a JSON object, not \(json.typeName)")
        }

        switch object["topic"] {
        case nil, .null?:
            throw HTTPError.badRequest("topic is required")
        case .string(let text)?:
            let trimmed = text.trimmingWhitespace()
            guard !trimmed.isEmpty else { throw HTTPError.badRequest("topic must not be empty") }
            // Bytes bound what reaches the model and the stored answer (a "character" can hold any
            // number of combining marks); characters bound what a person types.
            let bytes = trimmed.utf8.count
            guard bytes <= Self.maximumTopicBytes else {
                throw HTTPError.badRequest(
                    "topic must be at most \(Self.maximumTopicBytes) bytes of UTF-8 (it has \(bytes))")
            }
            // Characters never outnumber bytes, so a short topic's characters need no counting.
            guard bytes <= Self.maximumTopicCharacters || trimmed.count <= Self.maximumTopicCharacters else {
                throw HTTPError.badRequest(
                    "topic must be at most \(Self.maximumTopicCharacters) characters (it has \(trimmed.count))")
            }
            topic = trimmed
        case let other?:
            throw HTTPError.badRequest("topic must be a string, not \(other.typeName)")
        }

        switch object["length"] {
        case nil, .null?:
            length = .medium
        case .string(let text)?:
            guard let value = QuestionLength(rawValue: text) else {
                throw HTTPError.badRequest("length must be one of short, medium, long")
            }
            length = value
        case let other?:
            throw HTTPError.badRequest("length must be a string (short, medium or long), not \(other.typeName)")
        }

        switch object["count"] {
        case nil, .null?:
            count = length.defaultCount
        case let value? where value.typeName == "number":
            guard let number = value.int else { throw HTTPError.badRequest("count must be an integer") }
            guard Self.countRange.contains(number) else {
                throw HTTPError.badRequest(
                    "count must be between \(Self.countRange.lowerBound) and \(Self.countRange.upperBound)")
            }
            count = number
        case let other?:
            throw HTTPError.badRequest("count must be an integer, not \(other.typeName)")
        }

        switch object["language"] {
        case nil, .null?:
            language = nil
        case .string(let text)?:
            let trimmed = text.trimmingWhitespace()
            guard Self.isLanguageTag(trimmed) else {
                throw HTTPError.badRequest(
                    "language must be a BCP 47 language tag such as en, es-MX or zh-Hant-TW: letters, digits and "
                        + "hyphens, at most 35 characters")
            }
            language = trimmed
        case let other?:
            throw HTTPError.badRequest("language must be a string, not \(other.typeName)")
        }
    }
}

extension String {
    /// The string without leading and trailing whitespace and newlines.
    func trimmingWhitespace() -> String {
        // Most text starts and ends with an ASCII letter: nothing to trim, and no Unicode
        // property lookups (a byte below 0x80 is a whole scalar).
        if let first = utf8.first, let last = utf8.last, first < 0x80, last < 0x80,
            !Self.isASCIIWhitespace(first), !Self.isASCIIWhitespace(last)
        {
            return self
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    /// Tab, line feed, vertical tab, form feed, carriage return and space: the ASCII scalars
    /// Unicode counts as whitespace.
    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        (0x09...0x0D).contains(byte) || byte == 0x20
    }
}
