import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One intended call: what every attempt of it sends.
struct Call: Sendable {
    var method: String
    var path: String
    var body: Data?
    var idempotencyKey: String?
}

/// A 2xx answer.
struct Answer: Sendable {
    var status: Int
    var body: Data
    var replayed: Bool
}

extension InkraClient {
    /// Sends `call` until it is answered 2xx, or until an answer ends it, or ``retryPolicy`` does.
    func send(_ call: Call) async throws -> Answer {
        var attempts = 0
        var refreshedToken = false
        var forceRefresh = false
        while true {
            try Task.checkCancellation()
            let token = try await self.token(forceRefresh)
            forceRefresh = false
            attempts += 1
            let (data, response): (Data, URLResponse)
            do {
                (data, response) = try await session.data(for: request(for: call, token: token))
            } catch let error as URLError where Self.isLostAnswer(error.code) {
                // The call may or may not have reached the server: its retry, under the same key,
                // is never charged twice.
                guard attempts < retryPolicy.maximumAttempts else {
                    throw InkraClientError.network(code: error.code.rawValue)
                }
                try await sleep(retryPolicy.backoff(before: attempts))
                continue
            } catch let error as URLError {
                if error.code == .cancelled { throw CancellationError() }
                throw InkraClientError.network(code: error.code.rawValue)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // Not a URLError (some platforms' sessions throw their own): no answer, not retried.
                throw InkraClientError.network(code: URLError.Code.unknown.rawValue)
            }
            guard let http = response as? HTTPURLResponse else {
                throw InkraClientError.unexpected(status: 0, code: nil)
            }
            let status = http.statusCode
            if (200..<300).contains(status) {
                let replayed = http.value(forHTTPHeaderField: "Idempotent-Replayed")?.lowercased() == "true"
                return Answer(status: status, body: data, replayed: replayed)
            }
            let refusal = WireFormat.refusal(data)
            let retryAfterHeader = http.value(forHTTPHeaderField: "Retry-After").flatMap(Self.seconds)
            switch Self.decide(status: status, refusal: refusal) {
            case .freshToken:
                guard !refreshedToken else { break }
                refreshedToken = true
                forceRefresh = true
                attempts -= 1
                continue
            case .waitFor(let advised):
                let seconds = advised ?? retryAfterHeader
                guard attempts < retryPolicy.maximumAttempts else { break }
                let wait = seconds.map { Duration.seconds($0) } ?? retryPolicy.backoff(before: attempts)
                guard wait <= retryPolicy.maximumWait else { break }
                try await sleep(wait)
                continue
            case .fail:
                break
            }
            throw WireFormat.error(status: status, refusal: refusal, retryAfterHeader: retryAfterHeader)
        }
    }

    /// What an error answer calls for.
    enum Decision: Equatable {
        /// Ask the token provider for a fresh token and retry once.
        case freshToken
        /// Wait (the body's seconds, else `Retry-After`, else the backoff) and retry the same call.
        case waitFor(Int?)
        /// End the call with the answer's error.
        case fail
    }

    static func decide(status: Int, refusal: WireFormat.ErrorBody?) -> Decision {
        switch (status, refusal?.code) {
        // API Gateway's 401, with the project's gateway response (REST) or without (HTTP API).
        case (401, _): return .freshToken
        // An HTTP API's Lambda authorizer that refuses answers 403 `{"message":"Forbidden"}`
        // (no code): an expired token looks like that there.
        case (403, nil): return .freshToken
        case (409, "idempotency_conflict"): return .waitFor(refusal?.retryAfter)
        case (503, _): return .waitFor(refusal?.retryAfter)
        case (429, "throttled"), (429, nil): return .waitFor(nil)
        // API Gateway gave up waiting for the function, which may still run: the same key retried
        // resumes it or gets its answer.
        case (504, _): return .waitFor(nil)
        default: return .fail
        }
    }

    /// Errors after which the request may have reached the server without its answer reaching us.
    static func isLostAnswer(_ code: URLError.Code) -> Bool {
        [
            .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet, .cannotFindHost,
            .dnsLookupFailed, .badServerResponse, .secureConnectionFailed,
        ].contains(code)
    }

    /// `Retry-After` as a whole number of seconds (the server's form; an HTTP date is not used).
    static func seconds(_ text: String) -> Int? {
        Int(text.trimmingCharacters(in: .whitespaces)).flatMap { $0 >= 0 ? $0 : nil }
    }

    private func request(for call: Call, token: String) -> URLRequest {
        var request = URLRequest(url: baseURL.appendingPathComponent(call.path))
        request.httpMethod = call.method
        let (seconds, attoseconds) = retryPolicy.attemptTimeout.components
        request.timeoutInterval = Double(seconds) + Double(attoseconds) / 1e18
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body = call.body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let key = call.idempotencyKey { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        return request
    }
}
