import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's client of the Inkra API: `GET /usage` and `POST /questions`, with the rules the
/// server relies on kept in one place (docs/functions.md, docs/errors.md).
///
/// - One `Idempotency-Key` per intended call, sent again on each of its retries, so a call is
///   charged at most once however its answers get lost.
/// - A 409 (an earlier attempt still running) waits for the server's `retryAfter` and retries; a
///   503 or a throttling 429 waits for `Retry-After`; a lost answer (a timeout, a dropped
///   connection) retries at once with a growing backoff: all within ``RetryPolicy``.
/// - A 401 asks the token provider once for a fresh token and retries once.
/// - Every answer that carries usage updates the ``UsageTracker`` the app gave, for its screens only.
///
/// ```swift
/// let client = InkraClient(
///     baseURL: URL(string: "https://api.inkra.app/prod")!, usageTracker: UsageTracker(now: { Date() })
/// ) { forceRefresh in
///     try await auth.idToken(forceRefresh: forceRefresh)   // the app's own sign-in SDK
/// }
/// let answer = try await client.generateQuestions(topic: "My first job", length: .short)
/// ```
public struct InkraClient: Sendable {
    /// Gives the caller's id token (a Cognito id token, as the API's authorizer takes it).
    /// `forceRefresh` is `true` once after a 401: the provider must then not give a cached token.
    public typealias TokenProvider = @Sendable (_ forceRefresh: Bool) async throws -> String

    /// The API's base URL, its stage included (`https://…execute-api…/prod`).
    let baseURL: URL
    /// The figures of the last answer that carried usage: the tracker the app gave, and holds.
    let usageTracker: UsageTracker
    /// How far one call goes to get an answer.
    let retryPolicy: RetryPolicy

    let session: URLSession
    let token: TokenProvider
    let sleep: @Sendable (Duration) async throws -> Void
    let newKey: @Sendable () -> String

    /// A client.
    /// - Parameters:
    ///   - baseURL: the API's base URL, its stage included.
    ///   - session: the session requests go through (`.shared` unless a test gives its own).
    ///   - retryPolicy: how far one call goes to get an answer.
    ///   - usageTracker: where answers' usage goes (`UsageTracker(now: { Date() })` in an app).
    ///   - sleep: how the client waits before a retry (`Task.sleep` unless a test gives another).
    ///   - newIdempotencyKey: a fresh key per intended call (a random UUID unless a test gives another).
    ///   - token: the caller's id token; see ``TokenProvider``.
    public init(
        baseURL: URL, session: URLSession = .shared, retryPolicy: RetryPolicy = .standard,
        usageTracker: UsageTracker,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        newIdempotencyKey: @escaping @Sendable () -> String = { UUID().uuidString },
        token: @escaping TokenProvider
    ) {
        self.baseURL = baseURL
        self.session = session
        self.retryPolicy = retryPolicy
        self.usageTracker = usageTracker
        self.sleep = sleep
        self.newKey = newIdempotencyKey
        self.token = token
    }

    /// The caller's usage (`GET /usage`), which charges nothing; it also updates the ``UsageTracker``.
    /// - Returns: the month's, the day's and the hour's figures, read at once.
    /// - Throws: ``InkraClientError``, an error of the token provider, or `CancellationError`.
    public func usage() async throws -> Usage {
        let answer = try await send(Call(method: "GET", path: "usage", body: nil, idempotencyKey: nil))
        guard let usage = WireFormat.usage(answer.body) else {
            throw InkraClientError.unexpected(status: answer.status, code: nil)
        }
        await usageTracker.record(usage)
        return usage
    }

    /// Generates interview questions (`POST /questions`), charging one unit of the caller's
    /// month, day and hour once, whatever the retries.
    /// - Parameters:
    ///   - topic: what the interview is about: not empty, at most 500 characters.
    ///   - length: how long the interview runs; the server's default (`medium`) when `nil`.
    ///   - count: how many questions, 1 to 20; the length's default when `nil`.
    ///   - language: a language tag for the questions (`en`, `es-MX`), or `nil`.
    /// - Returns: the questions and the month's usage after the call.
    /// - Throws: ``InkraClientError``, an error of the token provider, or `CancellationError`.
    public func generateQuestions(
        topic: String, length: QuestionLength? = nil, count: Int? = nil, language: String? = nil
    ) async throws -> GeneratedQuestions {
        // Encoded once: every retry sends the same bytes with the same key (another body under
        // the key would be refused with 422).
        let body = WireFormat.questionsBody(topic: topic, length: length, count: count, language: language)
        let call = Call(method: "POST", path: "questions", body: body, idempotencyKey: newKey())
        let answer: Answer
        do {
            answer = try await send(call)
        } catch let error as InkraClientError {
            await track(error)
            throw error
        }
        guard let generated = WireFormat.generated(answer.body, replayed: answer.replayed) else {
            throw InkraClientError.unexpected(status: answer.status, code: nil)
        }
        await usageTracker.record(monthly: generated.usage)
        return generated
    }

    /// A 429 names a full window: the tracker learns it.
    private func track(_ error: InkraClientError) async {
        switch error {
        case .quotaExceeded(let limit, let used, let resetDate, let retryAfter, _):
            await usageTracker.recordFull(
                .month, limit: limit, used: used, retryAfter: retryAfter, resetDate: resetDate)
        case .rateLimited(let window, let limit, let retryAfter):
            await usageTracker.recordFull(window, limit: limit, retryAfter: retryAfter)
        default: break
        }
    }
}
