import Foundation
import InkraHandlers
import InkraJSON
import InkraTesting
import InkraTime
import Testing

/// Each recorded authorizer event of events/authorizer against the event ``AuthorizerEvent``
/// builds for the same request: the same members, the same reading, the same answer.
@Suite("AuthorizerEvent against the recorded events")
struct AuthorizerEventTests {
    static let samples: [(name: String, event: JSONValue)] = {
        do {
            return try Samples.events(in: ["authorizer"])
        } catch {
            fatalError("events/authorizer: \(error)")
        }
    }()

    @Test("There are recorded TOKEN, REQUEST and payload 2.0 events to compare with")
    func samplesExist() throws {
        let kinds = try Self.samples.map { try AuthorizerRequest(event: $0.event).kind }
        #expect(Set(kinds) == [.token, .request, .httpV2])
    }

    @Test("The builder's event and the recorded one read alike and get the same answer", arguments: samples.map(\.name))
    func sameRequest(name: String) async throws {
        let recorded = try #require(Self.samples.first { $0.name == name }?.event)
        let theirs = try AuthorizerRequest(event: recorded)
        let time = try #require(
            RequestTime.received(in: recorded) ?? recorded["x-inkra-recorded-at"]?.string.map { Timestamp(iso8601: $0) }
        )
        let arn = try #require(theirs.resourceArn)
        // arn:aws:execute-api:region:account:api/stage/METHOD/path
        let parts = arn.split(separator: "/", maxSplits: 3).map(String.init)
        try #require(parts.count == 4)
        let (method, path) = (parts[2], "/" + parts[3])

        let built: JSONValue
        switch theirs.kind {
        case .token: built = AuthorizerEvent.token(theirs.token, method: method, path: path)
        case .request: built = AuthorizerEvent.request(theirs.token, method: method, path: path, at: time)
        case .httpV2: built = AuthorizerEvent.http(theirs.token, method: method, path: path, at: time)
        case .httpV1: throw Samples.SampleError("no HTTP API payload 1.0 builder: \(name)")
        }
        let mine = try AuthorizerRequest(event: built)
        #expect(mine.kind == theirs.kind)
        #expect(mine.token == theirs.token)
        #expect(mine.resourceArn == theirs.resourceArn)
        #expect(Samples.keys(built) == Samples.keys(recorded))
        #expect(Samples.keys(built["requestContext"]) == Samples.keys(recorded["requestContext"]))
        #expect(built[path: ["requestContext", "requestTime"]] == recorded[path: ["requestContext", "requestTime"]])
        #expect(built[path: ["requestContext", "time"]] == recorded[path: ["requestContext", "time"]])

        let authorizer = try Samples.authorizer(at: time)
        #expect(await outcome(authorizer, built, at: time) == outcome(authorizer, recorded, at: time))
    }

    /// The answer at `time`, or the failed invocation.
    func outcome(_ authorizer: Authorizer, _ event: JSONValue, at time: Timestamp) async -> Result<
        JSONValue, FunctionError
    > {
        do {
            return .success(try await authorizer.handle(event, context: InvocationContext(time: time)))
        } catch {
            return .failure(error)
        }
    }
}
