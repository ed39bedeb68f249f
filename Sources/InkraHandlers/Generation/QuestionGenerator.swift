/// How long an interview should be; sets the default number of questions.
public enum QuestionLength: String, Sendable, Hashable, CaseIterable {
    case short
    case medium
    case long

    /// The number of questions when the caller names none: short 3, medium 5, long 8.
    package var defaultCount: Int {
        switch self {
        case .short: 3
        case .medium: 5
        case .long: 8
        }
    }
}

/// What to generate questions about.
public struct QuestionRequest: Sendable, Hashable {
    /// The interview's topic, trimmed, 1–500 characters.
    public var topic: String
    /// How many questions, 1–20.
    public var count: Int
    /// The interview's length.
    public var length: QuestionLength
    /// The questions' language (a BCP-47 tag such as `en` or `es-MX`), when the caller named one.
    public var language: String?
    /// Which of the asker's answers this is: `GenerateQuestions` passes the asker's count for the
    /// month, this request included, so each request differs from the one before it while a
    /// recorded event, replayed, gets the same questions. 0 when nobody counts.
    public var turn: Int

    /// Creates a request.
    public init(topic: String, count: Int, length: QuestionLength = .medium, language: String? = nil, turn: Int = 0) {
        self.topic = topic
        self.count = count
        self.length = length
        self.language = language
        self.turn = turn
    }

    /// The same request as the asker's `turn`-th answer.
    package func asTurn(_ turn: Int) -> QuestionRequest {
        var request = self
        request.turn = turn
        return request
    }
}

/// Produces interview questions: the product's one costly call.
public protocol QuestionGenerator: Sendable {
    /// Returns exactly `request.count` distinct questions about `request.topic`.
    /// - Throws: When generation fails; the caller gives the consumed unit back.
    func questions(for request: QuestionRequest) async throws -> [String]
}
