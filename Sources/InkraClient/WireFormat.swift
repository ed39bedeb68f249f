import Foundation

/// The API's JSON, read and written as docs/functions.md and docs/errors.md describe it.
enum WireFormat {
    /// An error body: `{"error": …, "code": …, …}` from the functions and the REST API's gateway
    /// responses, `{"message": …}` from an HTTP API's own refusals.
    struct ErrorBody: Decodable, Sendable {
        var error: String?
        var code: String?
        var window: String?
        var limit: Int?
        var used: Int?
        var retryAfter: Int?
        var resetDate: String?
        var upgradeUrl: String?
    }

    private struct QuestionsRequest: Encodable {
        var topic: String
        var length: QuestionLength?
        var count: Int?
        var language: String?
    }

    private struct QuestionsAnswer: Decodable {
        var questions: [String]
        var usage: MonthlyUsage
    }

    private struct UsageAnswer: Decodable {
        var used: Int
        var limit: Int
        var remaining: Int
        var resetDate: String
        var tier: String
        var daily: WindowUsage
        var hourly: WindowUsage
    }

    /// `POST /questions`' body; absent members take the server's defaults.
    static func questionsBody(topic: String, length: QuestionLength?, count: Int?, language: String?) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, an enum and an integer cannot fail.
        return (try? encoder.encode(QuestionsRequest(topic: topic, length: length, count: count, language: language)))
            ?? Data()
    }

    static func refusal(_ data: Data) -> ErrorBody? {
        try? JSONDecoder().decode(ErrorBody.self, from: data)
    }

    static func usage(_ data: Data) -> Usage? {
        guard let answer = try? decoder.decode(UsageAnswer.self, from: data),
            let resetDate = day(answer.resetDate)
        else { return nil }
        return Usage(
            monthly: MonthlyUsage(used: answer.used, limit: answer.limit, remaining: answer.remaining),
            resetDate: resetDate, tier: answer.tier, daily: answer.daily, hourly: answer.hourly)
    }

    static func generated(_ data: Data, replayed: Bool) -> GeneratedQuestions? {
        guard let answer = try? decoder.decode(QuestionsAnswer.self, from: data) else { return nil }
        return GeneratedQuestions(questions: answer.questions, usage: answer.usage, replayed: replayed)
    }

    /// The error an answer that ends a call stands for.
    static func error(status: Int, refusal: ErrorBody?, retryAfterHeader: Int?) -> InkraClientError {
        let retryAfter = refusal?.retryAfter ?? retryAfterHeader
        switch (status, refusal?.code) {
        case (429, "quota_exceeded"):
            guard let refusal, let limit = refusal.limit, let retryAfter,
                let resetDate = refusal.resetDate.flatMap(day)
            else { break }
            return .quotaExceeded(
                limit: limit, used: refusal.used ?? limit, resetDate: resetDate, retryAfter: retryAfter,
                upgradeURL: refusal.upgradeUrl.flatMap(URL.init(string:)))
        case (429, "rate_limited"):
            guard let limit = refusal?.limit, let retryAfter,
                let window = refusal?.window.flatMap(LimitWindow.init(rawValue:)), window != .month
            else { break }
            return .rateLimited(window: window, limit: limit, retryAfter: retryAfter)
        case (429, "throttled"), (429, nil): return .throttled(retryAfter: retryAfter)
        case (401, _): return .signedOut
        // An HTTP API's authorizer refusal has no code; with a fresh token, it is a denial.
        case (403, "access_denied"), (403, nil): return .accessDenied
        case (400, "invalid_request"): return .invalidRequest(message: refusal?.error ?? "")
        case (409, "idempotency_conflict"): return .inProgress(retryAfter: retryAfter ?? 0)
        case (422, "idempotency_key_reused"): return .idempotencyKeyReused
        case (503, "unavailable"), (503, nil): return .unavailable(retryAfter: retryAfter)
        case (502, "generation_failed"): return .generationFailed
        case (500, "internal_error"), (500, "authorizer_failure"), (500, "authorizer_unavailable"),
            (504, "timeout"), (500..<600, "gateway_error"):
            return .serverFailure(status: status, code: refusal?.code ?? "")
        case (504, nil): return .serverFailure(status: status, code: "timeout")
        case (400..<500, "request_rejected"): return .requestRejected(status: status)
        default: break
        }
        return .unexpected(status: status, code: refusal?.code)
    }

    /// A decoder for the API's answers (instants in ISO 8601).
    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// A `YYYY-MM-DD` day as its first instant, UTC.
    static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: components),
            calendar.dateComponents([.year, .month, .day], from: date) == components
        else { return nil }
        return date
    }
}
