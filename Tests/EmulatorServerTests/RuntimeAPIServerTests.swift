import EmulatorKit
import EmulatorServer
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import InkraTime
import NIOCore
import NIOHTTP1
import OutboundHTTP
import Testing

/// The local Runtime API on Hummingbird, as a runtime sees it over HTTP. The routes and headers
/// follow AWS's "Using the Lambda runtime API for custom runtimes"
/// (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html).
@Suite("RuntimeAPIServer: the local Lambda Runtime API over HTTP")
struct RuntimeAPIServerTests {
    static let timeout: TimeInterval = 10

    /// Sends one request to the server and reads the whole answer.
    static func send(_ method: HTTPMethod, _ path: String, to server: RuntimeAPIServer, body: String = "")
        async throws -> (status: Int, json: JSONValue?)
    {
        let client = OutboundHTTPClient()
        let url = try #require(HTTPURL(string: "http://\(server.address)\(path)"))
        let request = OutboundRequest(method: method, url: url, body: Array(body.utf8))
        do {
            let response = try await client.execute(request, timeout: Patience.hang, maximumResponseBytes: 1 << 20)
            await client.shutdown()
            return (response.status, try? JSONParser.parse(response.body))
        } catch {
            await client.shutdown()
            throw error
        }
    }

    @Test("next hands out the event with Lambda's four headers; the response comes back to the invoker")
    func nextAndResponse() async throws {
        let server = try await RuntimeAPIServer(functionName: "checkUsage", clock: { Timestamp.now })
        let before = Timestamp.now
        let invocation = Task { await server.invoke(Array(#"{"n":1}"#.utf8), timeout: Self.timeout) }
        let client = OutboundHTTPClient()
        let next: OutboundResponse
        do {
            let url = try #require(HTTPURL(string: "http://\(server.address)/2018-06-01/runtime/invocation/next"))
            next = try await client.execute(
                OutboundRequest(url: url), timeout: Patience.hang, maximumResponseBytes: 1 << 20)
        } catch {
            await client.shutdown()
            await server.shutdown()
            throw error
        }
        let after = Timestamp.now
        await client.shutdown()
        #expect(next.status == 200)
        #expect(String(decoding: next.body, as: UTF8.self) == #"{"n":1}"#)
        let requestID = try #require(next.headers.first(name: "Lambda-Runtime-Aws-Request-Id"))
        #expect(
            next.headers.first(name: "Lambda-Runtime-Invoked-Function-Arn")
                == "arn:aws:lambda:us-east-1:123456789012:function:checkUsage")
        #expect(next.headers.first(name: "Lambda-Runtime-Trace-Id")?.hasPrefix("Root=1-") == true)
        let deadline = try #require(next.headers.first(name: "Lambda-Runtime-Deadline-Ms").flatMap { Double($0) })
        // The deadline is the invocation's timeout from when it was handed out, whatever the load.
        let earliest = before.addingTimeInterval(Self.timeout).timeIntervalSince1970 - 0.001
        let latest = after.addingTimeInterval(Self.timeout).timeIntervalSince1970 + 0.001
        #expect((earliest...latest).contains(deadline / 1000))
        let accepted = try await Self.send(
            .POST, "/2018-06-01/runtime/invocation/\(requestID)/response", to: server, body: #"{"ok":true}"#)
        #expect(accepted.status == 202)
        #expect(await invocation.value == .response(Array(#"{"ok":true}"#.utf8)))
        await server.shutdown()
    }

    @Test("An unknown request id is refused 400 InvalidRequestID; an unknown path or method is 404 NotFound")
    func refusals() async throws {
        let server = try await RuntimeAPIServer(clock: { Timestamp.now })
        let unknownID = try await Self.send(
            .POST, "/2018-06-01/runtime/invocation/no-such-id/response", to: server, body: "{}")
        #expect(unknownID.status == 400)
        #expect(unknownID.json?["errorType"] == "InvalidRequestID")
        let unknownError = try await Self.send(
            .POST, "/2018-06-01/runtime/invocation/no-such-id/error", to: server, body: "{}")
        #expect(unknownError.status == 400)
        let unknownPath = try await Self.send(.GET, "/2018-06-01/runtime/invocation/later", to: server)
        #expect(unknownPath.status == 404)
        #expect(unknownPath.json?["errorType"] == "NotFound")
        let wrongMethod = try await Self.send(.POST, "/2018-06-01/runtime/invocation/next", to: server, body: "{}")
        #expect(wrongMethod.status == 404)
        #expect(wrongMethod.json?["errorType"] == "NotFound")
        await server.shutdown()
    }

    @Test(
        "Shutting down drops a long poll under way: the runtime's call fails instead of hanging",
        .timeLimit(.minutes(10)))
    func shutdownDropsLongPoll() async throws {
        let server = try await RuntimeAPIServer(clock: { Timestamp.now })
        let polling = Task { () -> Bool in
            let answer = try? await Self.send(.GET, "/2018-06-01/runtime/invocation/next", to: server)
            return answer == nil
        }
        var polled = false
        for _ in 0..<200 where !polled {
            polled = await server.queue.nextCalls == 1
            if !polled { try await Task.sleep(for: .milliseconds(25)) }
        }
        #expect(polled, "the runtime's poll never reached the server")
        await server.shutdown()
        #expect(await polling.value, "the long poll was answered, not dropped")
    }

    @Test("A port already in use is refused, naming the address")
    func portInUse() async throws {
        let first = try await RuntimeAPIServer(clock: { Timestamp.now })
        await #expect {
            _ = try await RuntimeAPIServer(port: first.port, clock: { Timestamp.now })
        } throws: { error in
            "\(error)".contains("cannot listen for the Runtime API on 127.0.0.1:\(first.port)")
        }
        await first.shutdown()
    }
}
