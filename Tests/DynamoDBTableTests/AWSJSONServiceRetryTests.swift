import AWSServices
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import InkraTime
import Synchronization
import Testing

/// SSM, Secrets Manager and Cognito's administrator calls are tried again when they fail in a way a
/// later attempt may not, as the AWS SDKs retry them: "Retry behavior" in the AWS SDKs and Tools
/// Reference Guide (throttling errors, transient errors — 5xx, a connection that fails — with
/// exponential backoff and jitter, up to a maximum of attempts). The services' throttling answers
/// follow their API references: SSM's and Secrets Manager's `ThrottlingException` ("Rate
/// exceeded", HTTP 400), Cognito's `TooManyRequestsException` (HTTP 400), and `InternalServerError`
/// / `InternalErrorException` (HTTP 500).
@Suite("AWS JSON services: retries with backoff, a bound, the deadline")
struct AWSJSONServiceRetryTests {
    /// Answers each request with the next scripted answer (or throws, for a dropped connection)
    /// and keeps the requests.
    final class Scripted: DynamoDBTransport {
        enum Step: Sendable {
            case answer(Int, String)
            case drop
        }
        let steps: Mutex<[Step]>
        let requests = Mutex<[DynamoDBHTTPRequest]>([])
        let repeatsLast: Bool

        init(_ steps: [Step], repeatsLast: Bool = false) {
            self.steps = Mutex(steps)
            self.repeatsLast = repeatsLast
        }

        var count: Int { requests.withLock { $0.count } }

        struct Dropped: Error {}

        func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
            requests.withLock { $0.append(request) }
            let step = steps.withLock { steps in
                steps.count == 1 && repeatsLast ? steps[0] : steps.removeFirst()
            }
            switch step {
            case .answer(let status, let body): return DynamoDBHTTPResponse(status: status, body: Array(body.utf8))
            case .drop: throw Dropped()
            }
        }
    }

    static let throttled = Scripted.Step.answer(400, #"{"__type":"ThrottlingException","message":"Rate exceeded"}"#)
    static let parameter = Scripted.Step.answer(
        200, #"{"Parameter":{"Name":"/inkra/limits","Type":"String","Value":"{\"free\":{}}","Version":1}}"#)
    static let aws = AWSSettings(
        region: "eu-west-1", accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret",
        endpoint: HTTPURL(string: "http://127.0.0.1:1"))

    /// Retries that wait a millisecond at most, so the tests do not wait, within a deadline a test
    /// run starving the process of threads cannot reach (the deadline has tests of its own).
    static var quick: AWSJSONService.Retries {
        var retries = AWSJSONService.Retries()
        retries.baseDelay = 0.001
        retries.maximumDelay = 0.001
        retries.deadline = Patience.seconds
        return retries
    }

    /// The waits a client asked for.
    final class Waits: Sendable {
        let seconds = Mutex<[TimeInterval]>([])
        var all: [TimeInterval] { seconds.withLock { $0 } }
    }

    @Test("GetParameter throttled twice, then answered: the value, after three attempts")
    func throttledThenAnswered() async throws {
        let transport = Scripted([Self.throttled, Self.throttled, Self.parameter])
        let ssm = try AWSJSONService.ssm(Self.aws, transport: transport, retries: Self.quick, now: { Timestamp.now })
        #expect(try await ssm.parameter(named: "/inkra/limits") == #"{"free":{}}"#)
        #expect(transport.count == 3)
    }

    @Test(
        "Transient failures are retried: throttling, 5xx, 429, a dropped connection",
        arguments: [
            Scripted.Step.answer(400, #"{"__type":"ThrottlingException","message":"Rate exceeded"}"#),
            .answer(400, #"{"__type":"TooManyRequestsException","message":"Too many requests"}"#),
            .answer(500, #"{"__type":"InternalServerError"}"#),
            .answer(503, ""),
            .answer(429, ""),
            .drop,
        ])
    func transient(_ failure: Scripted.Step) async throws {
        let transport = Scripted([failure, Self.parameter])
        let ssm = try AWSJSONService.ssm(Self.aws, transport: transport, retries: Self.quick, now: { Timestamp.now })
        #expect(try await ssm.parameter(named: "/inkra/limits") == #"{"free":{}}"#)
        #expect(transport.count == 2)
    }

    @Test("An answer is not retried: ParameterNotFound, access denied, a validation error")
    func answersAreNotRetried() async throws {
        for body in [
            #"{"__type":"ParameterNotFound","message":""}"#,
            #"{"__type":"AccessDeniedException","message":"not allowed"}"#,
            #"{"__type":"ValidationException","message":"bad name"}"#,
        ] {
            let transport = Scripted([.answer(400, body), Self.parameter])
            let ssm = try AWSJSONService.ssm(
                Self.aws, transport: transport, retries: Self.quick, now: { Timestamp.now })
            await #expect(throws: AWSServiceError.self) { try await ssm.parameter(named: "/inkra/limits") }
            #expect(transport.count == 1, "\(body)")
        }
    }

    @Test("Throttled on every attempt: the bound (5 attempts), and the error names the type and the attempts")
    func bound() async throws {
        let transport = Scripted([Self.throttled], repeatsLast: true)
        let secrets = try AWSJSONService.secretsManager(
            Self.aws, transport: transport, retries: Self.quick, now: { Timestamp.now })
        do {
            _ = try await secrets.secretString(id: "arn:aws:secretsmanager:eu-west-1:1:secret:k")
            Issue.record("a call throttled every time succeeded")
        } catch let error as AWSServiceError {
            #expect(error.type == "ThrottlingException")
            #expect(error.attempts == AWSJSONService.Retries().maximumAttempts)
            #expect("\(error)" == "ThrottlingException: Rate exceeded (after 5 attempts)")
        }
        #expect(transport.count == 5)
    }

    @Test("The backoff is the table client's: ceilings of 0.1 s doubling to 1 s, a fraction of each (full jitter)")
    func backoff() async throws {
        let transport = Scripted([Self.throttled], repeatsLast: true)
        var retries = AWSJSONService.Retries()
        retries.deadline = Patience.seconds
        let waits = Waits()
        let ssm = try AWSJSONService.ssm(Self.aws, transport: transport, retries: retries, now: { Timestamp.now })
            .waiting(with: { seconds in waits.seconds.withLock { $0.append(seconds) } }, jitter: { 1 })
        await #expect(throws: AWSServiceError.self) { try await ssm.parameter(named: "/inkra/limits") }
        #expect(waits.all == [0.1, 0.2, 0.4, 0.8])
        let halves = try AWSJSONService.ssm(Self.aws, transport: transport, retries: retries, now: { Timestamp.now })
            .waiting(with: { seconds in waits.seconds.withLock { $0.append(seconds) } }, jitter: { 0.5 })
        await #expect(throws: AWSServiceError.self) { try await halves.parameter(named: "/inkra/limits") }
        #expect(waits.all.suffix(4) == [0.05, 0.1, 0.2, 0.4])
    }

    @Test("The request's deadline: no attempt once it has passed; no backoff past it, the last error thrown")
    func deadline() async throws {
        let transport = Scripted([Self.throttled], repeatsLast: true)
        var slow = AWSJSONService.Retries()
        slow.baseDelay = 30
        slow.maximumDelay = 30
        slow.deadline = Patience.seconds
        let waits = Waits()
        let ssm = try AWSJSONService.ssm(Self.aws, transport: transport, retries: slow, now: { Timestamp.now })
            .waiting(
                with: { seconds in
                    waits.seconds.withLock { $0.append(seconds) }
                    try await Task.sleep(for: .seconds(seconds))
                }, jitter: { 1 })
        // Passed: nothing is sent.
        do {
            _ = try await ssm.bound(to: RequestScope(deadline: ContinuousClock.now - .seconds(1)))
                .parameter(named: "/inkra/limits")
            Issue.record("a call past its deadline succeeded")
        } catch let error as AWSServiceError {
            #expect(error.type == "RequestTimeout" && error.attempts == 0, "\(error)")
        }
        #expect(transport.count == 0)
        // 300 ms left and a 30 s backoff: an attempt whose timeout is cut to the deadline, a wait
        // that ends there, and the throttling error (or, on a machine so busy that the 300 ms
        // passed before the first attempt, none sent).
        do {
            _ = try await ssm.bound(to: RequestScope(deadline: ContinuousClock.now + .milliseconds(300)))
                .parameter(named: "/inkra/limits")
            Issue.record("a throttled call succeeded")
        } catch let error as AWSServiceError {
            #expect(
                (error.type == "ThrottlingException" && error.attempts == 1)
                    || (error.type == "RequestTimeout" && error.attempts == 0), "\(error)")
        }
        #expect(transport.count <= 1)
        #expect(transport.requests.withLock { $0.allSatisfy { $0.timeout <= 0.3 } })
        #expect(waits.all.allSatisfy { $0 <= 0.3 }, "\(waits.all)")
    }

    @Test("AdminDeleteUser: TooManyRequestsException, then deleted; a 5xx then UserNotFound is a deletion done")
    func cognito() async throws {
        let transport = Scripted([
            .answer(400, #"{"__type":"TooManyRequestsException","message":"Too many requests"}"#),
            .answer(200, ""),
            .answer(500, #"{"__type":"InternalErrorException","message":"internal error"}"#),
            .answer(400, #"{"__type":"UserNotFoundException","message":"User does not exist."}"#),
        ])
        let admin = try CognitoUserAdmin(
            userPoolID: "eu-west-1_AbCdEf123", aws: Self.aws, transport: transport, retries: Self.quick,
            now: { Timestamp.now })
        #expect(try await admin.deleteUser("ada"))
        #expect(try await admin.deleteUser("bob") == false)
        #expect(transport.count == 4)
    }

    @Test("The errors the AWS SDKs retry, and those they do not")
    func classification() {
        #expect(AWSServiceError(type: "ThrottlingException", message: "", status: 400).isRetryable)
        #expect(AWSServiceError(type: "TooManyRequestsException", message: "", status: 400).isRetryable)
        #expect(AWSServiceError(type: "RequestFailed", message: "connection reset").isRetryable)
        #expect(AWSServiceError(type: "HTTP 502", message: "", status: 502).isRetryable)
        #expect(AWSServiceError(type: "HTTP 429", message: "", status: 429).isRetryable)
        #expect(!AWSServiceError(type: "ParameterNotFound", message: "", status: 400).isRetryable)
        #expect(!AWSServiceError(type: "NotAuthorizedException", message: "", status: 400).isRetryable)
        #expect(!AWSServiceError(type: "ResourceNotFoundException", message: "", status: 400).isRetryable)
    }
}
