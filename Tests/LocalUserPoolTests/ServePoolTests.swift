import EmulatorKit
import EmulatorServer
import Foundation
import HTTPText
import InkraTime
import Logging
import Testing

/// `serve` with its user pool: the port it binds, and what happens when that port is taken.
@Suite("serve's user pool: its port, and a taken one")
struct ServePoolTests {
    /// Runs a server until `body` returns, handing it the endpoints; what `run` threw, if anything.
    private func serve(cognitoPort: Int, fallsBack: Bool, _ body: (ServeEndpoints) async throws -> Void) async throws
        -> (any Error)?
    {
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = PoolFixture.key
        let stack = try await EmulatorStack(options: options)
        var configuration = ServeConfiguration.ephemeral
        configuration.ports[.cognito] = cognitoPort
        configuration.freePortWhenTaken = fallsBack ? [.cognito] : []
        configuration.accessLog = false
        let server = try await LocalServer(
            stack: stack, configuration: configuration,
            logger: Logger(label: "serve", factory: { _ in SwiftLogNoOpLogHandler() }))
        let (ready, continuation) = AsyncStream.makeStream(of: ServeEndpoints.self)
        let running = Task {
            defer { continuation.finish() }
            try await server.run { continuation.yield($0) }
        }
        if let endpoints = await ready.first(where: { _ in true }) {
            try await body(endpoints)
            await server.shutdown()
        }
        do {
            try await running.value
            return nil
        } catch {
            return error
        }
    }

    @Test("a taken port: a free one when --cognito-port was not given; refused, naming the flag, when it was")
    func takenPort() async throws {
        let failure = try await serve(cognitoPort: 0, fallsBack: false) { first in
            let taken = try #require(first.cognito?.port)
            let moved = try await serve(cognitoPort: taken, fallsBack: true) { second in
                let port = try #require(second.cognito?.port)
                #expect(port != taken)
                let banner = second.banner(configuration: ServeConfiguration(), stateFile: nil, dynamoDBEndpoint: nil)
                #expect(banner.contains("Cognito       http://127.0.0.1:\(port)"))
                #expect(banner.contains("app client inkra-local-client"))
                #expect(banner.contains("app client inkra-local-cli-client"))
            }
            #expect(moved == nil)
            let refused = try await serve(cognitoPort: taken, fallsBack: false) { _ in
                Issue.record("a server started on a taken --cognito-port")
            }
            #expect("\(refused.map { "\($0)" } ?? "")".contains("(--cognito-port): the port is in use"))
        }
        #expect(failure == nil)
    }
}
