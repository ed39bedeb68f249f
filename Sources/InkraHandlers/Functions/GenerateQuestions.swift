import CoreMetrics
import InkraAuth
import InkraJSON
import InkraTime
import InkraTracing
import InkraUsage
import Logging

/// `generateQuestions` (POST): checks the caller and the body, consumes one unit of usage in all
/// three windows at once, then generates.
public struct GenerateQuestions: EventHandler {
    /// The largest body accepted, in bytes.
    package static let maximumBodySize = 64 * 1024

    private(set) var store: any UsageStore
    private(set) var generator: any QuestionGenerator
    let limits: TierLimits
    let upgradeURL: String
    let metrics: any MetricsFactory
    /// The deadlines and trace of the invocation it is bound to (``bound(to:)``).
    private var scope = RequestScope()
    /// The logger of the invocation it is bound to.
    private var logger = Logger(label: "inkra.generateQuestions")

    /// Creates the function with its dependencies.
    /// - Parameters:
    ///   - store: where usage is counted.
    ///   - generator: what writes the questions.
    ///   - limits: each tier's limits.
    ///   - upgradeURL: sent with the monthly 429.
    ///   - metrics: where `QuotaExceeded`, `RateLimitHit` and `UsageStoreFailure` are counted (the
    ///     process's metrics system unless another is given).
    public init(
        store: any UsageStore,
        generator: any QuestionGenerator,
        limits: TierLimits = TierLimits(),
        upgradeURL: String = "https://inkra.app/premium",
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.store = store
        self.generator = generator
        self.limits = limits
        self.upgradeURL = upgradeURL
        self.metrics = metrics
    }

    /// Charges the caller at the context's time and generates within its deadline.
    public func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue {
        let request = try ProxyRequest(event: event)
        return await bound(to: context).respond(to: request, at: context.time).json
    }

    /// This function for one invocation: its store and generator bound to the invocation's scope,
    /// logging through the invocation's logger.
    private func bound(to context: InvocationContext) -> GenerateQuestions {
        var function = self
        function.scope = context.scope
        function.logger = context.logger
        function.store = store.bound(to: context)
        function.generator = function.scope.bind(generator)
        return function
    }

    /// Answers one proxy request at an instant, under the bound invocation's deadline.
    private func respond(to request: ProxyRequest, at instant: Timestamp) async -> ProxyResponse {
        do {
            return try await answer(request, at: instant)
        } catch let error as HTTPError {
            return error.response
        } catch {
            logger.error("generateQuestions failed", metadata: ["error": "\(error)"])
            return HTTPError.internalServer.response
        }
    }

    private func answer(_ request: ProxyRequest, at instant: Timestamp) async throws -> ProxyResponse {
        guard let caller = CallerIdentity(authorizer: request.authorizer) else { throw HTTPError.unauthorized }
        let bodyBytes = try request.bodyBytes()
        let body = try QuestionsBody(bodyBytes)
        let idempotencyKey = try Self.idempotencyKey(request)
        guard !scope.hasPassed() else { throw HTTPError.outOfTime }
        let callerLimits = caller.limits(in: limits)
        let outcome: ConsumeOutcome
        do {
            outcome = try await scope.span("consume") { _, scope in
                try await scope.bind(store).consume(
                    ConsumeRequest(
                        userID: caller.userID, instant: instant, limits: callerLimits,
                        idempotencyKey: idempotencyKey, requestBody: idempotencyKey == nil ? [] : bodyBytes ?? [],
                        tier: caller.tier.rawValue, email: caller.email)
                )
            }
        } catch {
            guard let charged = (error as? UsageStoreError)?.charged else {
                storeFailed("usage store failed; refusing rather than generating unmetered", error)
                throw HTTPError.storeUnavailable
            }
            // The charge stands but what followed it failed: give the unit back rather than keep
            // it without an answer.
            storeFailed("usage store failed after charging; giving the unit back", error)
            let givenBack = await giveBack(charged, because: "the store failed after charging")
            throw unanswered(charged, givenBack: givenBack, .storeUnavailable)
        }
        switch outcome {
        case .refused(let refusal):
            logger.info(
                "refused",
                metadata: [
                    "user": "\(caller.userID)", "window": "\(refusal.window.rawValue)", "limit": "\(refusal.limit)",
                ]
            )
            if refusal.window == .month {
                MetricName.quotaExceeded.increment(in: metrics)
            } else {
                MetricName.rateLimitHit.increment(dimensions: [("window", refusal.window.rawValue)], in: metrics)
            }
            if !refusal.recorded {
                logger.warning("the refusal could not be marked for the refusals-by-date index")
                MetricName.usageStoreFailure.increment(in: metrics)
            }
            throw HTTPError.refusal(refusal, upgradeURL: upgradeURL)
        case .repeated(let stored):
            return ProxyResponse(
                statusCode: stored.statusCode,
                headers: ["Content-Type": "application/json", "Idempotent-Replayed": "true"],
                body: stored.body
            )
        case .inProgress(let retryAfter):
            throw HTTPError(
                .idempotencyConflict, "A request with this Idempotency-Key is still in progress",
                details: [("retryAfter", .number(retryAfter))], headers: ["Retry-After": String(retryAfter)])
        case .keyReused:
            throw HTTPError(
                .idempotencyKeyReused, "This Idempotency-Key was used with a different body; use a new key")
        case .closed:
            logger.info("refused: the account was deleted", metadata: ["user": "\(caller.userID)"])
            throw HTTPError.accountDeleted
        case .consumed(let consumption, let monthly):
            return try await answer(body, consumption, monthly)
        }
    }

    /// Generates for a charged unit and answers 200, or gives the unit back. With an idempotency
    /// key, the 200 goes out only once the key's record holds it; when that write fails, the
    /// answer is 503 and the unit stays charged for the call's retries, which take the record
    /// over (or a repair gives it back).
    private func answer(
        _ body: QuestionsBody, _ consumption: Consumption, _ monthly: WindowUsage
    ) async throws -> ProxyResponse {
        let questions: [String]
        do {
            questions = try await generate(body.questionRequest.asTurn(monthly.used))
        } catch let error where error is HTTPError || scope.hasPassed() {
            // Out of time, whichever noticed first: the race below, or the generator's own
            // call cut to the same deadline.
            let givenBack = await giveBack(consumption, because: "the request ran out of time")
            throw unanswered(consumption, givenBack: givenBack, .outOfTime)
        } catch {
            logger.error("generation failed; giving the unit back", metadata: ["error": "\(error)"])
            let givenBack = await giveBack(consumption, because: "generation failed")
            throw unanswered(
                consumption, givenBack: givenBack, HTTPError(.generationFailed, "Question generation failed"))
        }
        let response = ProxyResponse.json(
            200,
            [
                "questions": .array(questions.map(JSONValue.string)),
                "usage": [
                    "used": .number(monthly.used),
                    "limit": .number(monthly.limit),
                    "remaining": .number(monthly.remaining),
                ],
            ]
        )
        if consumption.idempotencyKey != nil {
            do {
                try await store.complete(consumption, with: StoredResponse(statusCode: 200, body: response.body))
            } catch {
                storeFailed("could not record the answer; the unit stays charged for the call's retries", error)
                throw HTTPError.storeUnavailableKeepKey
            }
        }
        return response
    }

    /// The answer for a charged call that gets no questions: `error` when its unit is back; when
    /// it is not, a 503 that promises nothing about the charge, except that with an idempotency
    /// key a retry is not charged again.
    private func unanswered(_ consumption: Consumption, givenBack: Bool, _ error: HTTPError) -> HTTPError {
        if givenBack { return error }
        return consumption.idempotencyKey == nil ? .storeUnavailable : .storeUnavailableKeepKey
    }

    /// Logs a usage store failure (without content) and counts it.
    private func storeFailed(_ message: Logger.Message, _ error: any Error) {
        logger.error(message, metadata: ["error": "\(error)"])
        MetricName.usageStoreFailure.increment(in: metrics)
    }

    /// The generator's questions, raced against the request's deadline (`withDeadline`): past it,
    /// the answer is ``HTTPError/outOfTime`` while API Gateway still waits for one, and the
    /// generator's call is cancelled (and left behind if it does not stop).
    private func generate(_ request: QuestionRequest) async throws -> [String] {
        let generator = generator
        guard let deadline = scope.deadline else {
            return try Self.nonEmpty(await generator.questions(for: request))
        }
        do {
            return try await withDeadline(deadline) { try Self.nonEmpty(await generator.questions(for: request)) }
        } catch is DeadlinePassed {
            throw HTTPError.outOfTime
        }
    }

    private static func nonEmpty(_ questions: [String]) throws -> [String] {
        guard !questions.isEmpty else { throw GenerationError.empty }
        return questions
    }

    /// Gives a consumed unit back, under the request's clean-up budget; a failure to do so is
    /// logged and counted, never hidden from operators (with an idempotency key, the record stays
    /// for the call's retries or the repair).
    /// - Returns: whether the unit is back.
    private func giveBack(_ consumption: Consumption, because reason: String) async -> Bool {
        logger.warning("giving the unit back", metadata: ["reason": "\(reason)"])
        do {
            try await scope.span("give-back") { _, scope in try await scope.bind(store).release(consumption) }
            return true
        } catch {
            let fate = consumption.idempotencyKey == nil ? "lost" : "left for a retry or the repair"
            logger.critical("could not give the unit back; \(fate)", metadata: ["error": "\(error)"])
            MetricName.usageStoreFailure.increment(in: metrics)
            return false
        }
    }

    /// The characters an `Idempotency-Key` may have.
    package static let idempotencyKeyLength = 1...128

    /// Whether an `Idempotency-Key` is one the function takes: 1–128 printable characters.
    package static func accepts(idempotencyKey key: String) -> Bool {
        idempotencyKeyLength.contains(key.count)
            && key.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
    }

    /// The `Idempotency-Key` header, 1–128 characters, when present.
    private static func idempotencyKey(_ request: ProxyRequest) throws(HTTPError) -> String? {
        guard let key = request.header("Idempotency-Key") else { return nil }
        guard accepts(idempotencyKey: key) else {
            throw HTTPError.badRequest("Idempotency-Key header must be 1 to 128 printable characters")
        }
        return key
    }

    private enum GenerationError: Error {
        case empty
    }
}

extension CallerIdentity {
    /// The caller's limits: their tier's, with their own monthly quota when they have one.
    func limits(in table: TierLimits) -> Limits {
        let tierLimits = table.limits(forTier: tier.rawValue)
        guard let monthlyQuota else { return tierLimits }
        return tierLimits.withMonthly(monthlyQuota)
    }
}

extension HTTPError {
    /// 401: the caller's account was deleted; its tokens are refused until they expire.
    static let accountDeleted = HTTPError(.unauthorized, "This account was deleted; sign up to use Inkra again")

    /// 503: the request's deadline came before its answer; the unit was given back.
    static let outOfTime = unavailable("The request ran out of time; nothing was charged")

    /// 503: the usage store failed after the unit was charged, and it could not be given back yet:
    /// a retry with the same `Idempotency-Key` is not charged again.
    static let storeUnavailableKeepKey = unavailable(
        "Usage store unavailable; retry with the same Idempotency-Key, which is not charged twice")

    /// The 429 for a full window, with `Retry-After` and the window in the body.
    static func refusal(_ refusal: Refusal, upgradeURL: String) -> HTTPError {
        let headers = ["Retry-After": String(refusal.retryAfter)]
        let window: [(String, JSONValue)] = [
            ("window", .string(refusal.window.rawValue)),
            ("limit", .number(refusal.limit)),
            ("retryAfter", .number(refusal.retryAfter)),
        ]
        switch refusal.window {
        case .month:
            return HTTPError(
                .quotaExceeded,
                "Monthly quota exceeded",
                details: window + [
                    ("used", .number(refusal.used)),
                    ("resetDate", .string(refusal.resetDate)),
                    ("upgradeUrl", .string(upgradeURL)),
                ],
                headers: headers
            )
        case .day:
            return HTTPError(.rateLimited, "Daily limit exceeded", details: window, headers: headers)
        case .hour:
            return HTTPError(.rateLimited, "Hourly limit exceeded", details: window, headers: headers)
        }
    }
}
