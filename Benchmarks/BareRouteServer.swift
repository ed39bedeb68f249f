import Hummingbird
import Logging

/// The baseline of `serve`'s load benchmark, run as a child process of the benchmarks: a
/// Hummingbird route that reads the body and answers 300 fixed bytes as JSON, about the size of
/// `generateQuestions`' answer — the floor of any HTTP server's work.
///
/// `inkra-benchmarks --bare-route-server PORT`, until SIGTERM.
enum BareRouteServer {
    static let flag = "--bare-route-server"

    static func run(port: Int) async throws {
        let answer = ByteBuffer(string: String(repeating: "x", count: 300))
        let router = Router()
        router.post("questions") { request, _ -> Response in
            var request = request
            _ = try await request.collectBody(upTo: 1 << 20)
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: answer))
        }
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
            logger: Logger(label: "bare", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await app.runService()
    }
}
