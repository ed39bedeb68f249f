import Foundation
import HTTPText
import InkraAuth
import InkraHandlers
import InkraJSON
import NIOHTTP1
import OutboundHTTP

/// `replay endpoint`: sends each event, in turn, as the HTTP request it describes
/// (``EndpointRequest``) to a deployed stage (or `serve`), and checks the answer against the
/// event's expectation as ``Replayer`` checks a local result (``Expectation``).
///
/// Every request goes as one caller, the test user: an event that carried an `Authorization` header
/// gets the test user's token in its place (a recorded token is never sent); an event without one
/// goes without. What cannot be checked that way is reported as such, not as a failure
/// (``ReplayRecord/skipped``):
/// - authorizer events and events that are not API Gateway proxy events (no HTTP request);
/// - events of a user other than the first one seen (the run has one test user);
/// - events that expect their recorded token to be refused (401 or 403): the test user's is valid;
/// - events with a token when the run has none (no `--token` nor `--user`).
///
/// The run stops after ``stormLimit`` answers in a row of 5xx (or no answer at all): the stack
/// is failing, and sending the rest would only add load to it.
package struct EndpointReplayer: Sendable {
    /// The stage's URL.
    package var endpoint: HTTPURL
    /// The test user's id token; `nil` sends no token.
    package var token: String?
    /// How many 5xx answers (or failed exchanges) in a row stop the run.
    package var stormLimit = 5
    /// How long one exchange may take (API Gateway gives up on an integration after 29 s).
    package var timeout: Duration = .seconds(35)
    /// The HTTP client.
    package var client = OutboundHTTPClient.shared

    /// A replayer against a stage.
    package init(endpoint: HTTPURL, token: String?) {
        self.endpoint = endpoint
        self.token = token
    }

    /// How a run ended.
    package struct Outcome: Sendable {
        /// The counts of each verdict.
        package var tally = ReplayTally()
        /// Why the run stopped before its last event (the storm), if it did.
        package var stopped: String?
    }

    /// Sends the events of files, folders and JSON-lines files in turn, handing over each record.
    /// - Parameters:
    ///   - paths: event files, folders and JSON-lines files.
    ///   - each: called with each record, in input order, and the total once known.
    package func replay(_ paths: [URL], each: (ReplayRecord, _ total: Int?) -> Void) async -> Outcome {
        var outcome = Outcome()
        var source = EventSource(paths)
        var testUser: String?
        var failuresInARow = 0
        while let loaded = source.next() {
            var record = ReplayRecord(file: loaded.display)
            record.function = loaded.function
            if let problem = loaded.problem {
                record.problem = problem
            } else if loaded.function != nil {
                let (event, _) = Replayer.prepare(loaded.event)
                do throws(EmulatorError) {
                    let expected = try loaded.expected()
                    if let reason = skipReason(loaded.function, event, expected, testUser: &testUser) {
                        record.skipped = reason
                    } else {
                        let fiveHundred = await send(event, expected: expected, into: &record)
                        failuresInARow = fiveHundred ? failuresInARow + 1 : 0
                    }
                } catch {
                    record.problem = error.message
                }
            }
            outcome.tally.add(record)
            each(record, source.knownTotal)
            if failuresInARow >= stormLimit {
                outcome.stopped =
                    "stopped after \(failuresInARow) answers in a row of 5xx or none from \(endpoint.absoluteString): "
                    + "the stack is failing, not the events; see its logs (--storm-limit sets the bound)"
                break
            }
        }
        return outcome
    }

    /// Why an event cannot be checked against an endpoint, or `nil` when it can. Remembers the
    /// first user seen as the test user's stand-in.
    private func skipReason(
        _ function: FunctionName?, _ event: JSONValue, _ expected: JSONValue?, testUser: inout String?
    ) -> String? {
        if function == .authorizer {
            return "not checkable against an endpoint: an authorizer event is not a request a client sends"
        }
        let user = Self.user(of: event)
        let hasToken = Self.hasAuthorization(event)
        if hasToken, token == nil {
            return "not checkable against an endpoint without a token: give --token or --user"
        }
        if hasToken, let status = expected?["statusCode"]?.int, status == 401 || status == 403 {
            return "not checkable against an endpoint: it expects its recorded token to be refused (\(status)), "
                + "and requests carry the test user's valid token"
        }
        if let user {
            if testUser == nil { testUser = user }
            if testUser != user {
                return
                    "not checkable against an endpoint: another user's event, and every request goes as the one test user"
            }
        }
        return nil
    }

    /// Sends one event and compares; whether the answer was a 5xx or none came.
    private func send(_ event: JSONValue, expected: JSONValue?, into record: inout ReplayRecord) async -> Bool {
        let made = EndpointRequest.make(event, endpoint: endpoint, token: token)
        let request: EndpointRequest
        switch made {
        case .success(let value): request = value
        case .failure(let problem):
            record.skipped = "not checkable against an endpoint: \(problem.message)"
            return false
        }
        let started = ContinuousClock.now
        let response: OutboundResponse
        do {
            response = try await client.execute(request.request, timeout: timeout)
        } catch {
            record.duration = ContinuousClock.now - started
            record.problem = "no answer from \(endpoint.absoluteString): \(error)"
            return true
        }
        record.duration = ContinuousClock.now - started
        let invocation = Invocation(outcome: .success(Self.proxyResponse(response, expected: expected)))
        record.invocation = invocation
        if let expected {
            record.checked = true
            record.mismatches = Expectation(json: expected).mismatches(invocation)
        }
        return response.status >= 500
    }

    /// The answer as a proxy response (`statusCode`, `headers`, `body`), for ``Expectation``.
    /// Header names are matched without regard to case: a header the expectation names is also
    /// listed under the expectation's spelling.
    static func proxyResponse(_ response: OutboundResponse, expected: JSONValue?) -> JSONValue {
        var headers = JSONObject()
        for (name, value) in response.headers {
            headers[name] = .string(headers[name]?.string.map { "\($0),\(value)" } ?? value)
        }
        for name in expected?["headers"]?.object?.keys ?? [] where headers[name] == nil {
            if let match = headers.pairs.first(where: { $0.key.lowercased() == name.lowercased() }) {
                headers[name] = match.value
            }
        }
        return [
            "statusCode": .number(String(response.status)), "headers": .object(headers),
            "body": .string(String(decoding: response.body, as: UTF8.self)),
        ]
    }

    /// Whether the event carries an `Authorization` header.
    static func hasAuthorization(_ event: JSONValue) -> Bool {
        let names = (event["headers"]?.object?.keys ?? []) + (event["multiValueHeaders"]?.object?.keys ?? [])
        return names.contains { $0.lowercased() == "authorization" }
    }

    /// The user an event is for: its authorizer's `sub`/`principalId`, else its token's `sub`
    /// (read, not verified, and never printed); `nil` when it names none.
    static func user(of event: JSONValue) -> String? {
        let authorizer = event["requestContext"]?["authorizer"]
        for path in [["claims", "sub"], ["jwt", "claims", "sub"], ["lambda", "sub"], ["sub"], ["principalId"]] {
            var value = authorizer
            for key in path { value = value?[key] }
            if let sub = value?.string, !sub.isEmpty { return sub }
        }
        let headers = EndpointRequest.headers(event, isV2: event["version"]?.string == "2.0")
        guard let value = headers.first(where: { $0.0.lowercased() == "authorization" })?.1.first else { return nil }
        return (try? CompactToken(value))?.payload["sub"]?.string
    }
}
