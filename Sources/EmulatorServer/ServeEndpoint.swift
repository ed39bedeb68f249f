import EmulatorKit
import HTTPTypes
import Hummingbird
import NIOCore

/// Which of `serve`'s endpoints: the flag that sets its port, and its port unless told (docs/emulator.md).
package struct EndpointRole: Hashable, Sendable {
    package let flag: String
    package let defaultPort: Int

    package static let api = EndpointRole(flag: "--port", defaultPort: 3000)
    package static let lambda = EndpointRole(flag: "--lambda-port", defaultPort: 3001)
    package static let runtimeAPI = EndpointRole(flag: "--runtime-api-port", defaultPort: 9001)
    package static let dynamoDB = EndpointRole(flag: "--dynamodb-port", defaultPort: 8000)
    package static let console = EndpointRole(flag: "--console-port", defaultPort: 3002)
    package static let cognito = EndpointRole(flag: "--cognito-port", defaultPort: 9229)
}

/// One of `serve`'s HTTP servers: which endpoint it is (and so its port) and how it answers.
protocol ServeEndpoint: Sendable {
    /// Which endpoint it is.
    var role: EndpointRole { get }
    /// Answers one request.
    func respond(_ request: Request, context: ServeRequestContext) async -> Response
    /// Ends what would hold up a graceful shutdown (the console's live lists).
    func finish()
}

extension ServeEndpoint {
    func finish() {}
}

/// An endpoint that answers whole requests, read up to a limit, on the connection's event loop.
struct LocalEndpoint: ServeEndpoint {
    let role: EndpointRole
    /// The largest body it reads; a larger one gets ``tooLarge``.
    let limit: Int
    let tooLarge: @Sendable () -> LocalHTTPResponse
    let answer: @Sendable (LocalHTTPRequest) async -> LocalHTTPResponse

    func respond(_ request: Request, context: ServeRequestContext) async -> Response {
        guard let local = await LocalHTTPRequest.read(request, context: context, limit: limit) else {
            return tooLarge().hummingbird
        }
        // Where the event loops run the tasks, the request stays isolated to its own.
        if EventLoopExecutor.isInstalled, let isolation = EventLoopIsolation.of(context.channel.eventLoop) {
            return await isolation.run { await answer(local) }.hummingbird
        }
        return await answer(local).hummingbird
    }
}

/// The request context of the local servers: Hummingbird's core storage and the connection (its
/// client's address, which API Gateway reports as `sourceIp`; its event loop; a dropped long poll
/// closes it).
struct ServeRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's connection.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}

extension LocalHTTPRequest {
    /// Reads a Hummingbird request, body and all, up to `limit` bytes.
    /// - Returns: the request, or `nil` when its body is larger than `limit`.
    static func read(_ request: Request, context: ServeRequestContext, limit: Int) async -> LocalHTTPRequest? {
        var request = request
        guard let buffer = try? await request.collectBody(upTo: limit) else { return nil }
        return LocalHTTPRequest(
            method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
            headers: request.headers.map { ($0.name.rawName, $0.value) }, body: Array(buffer: buffer),
            sourceIP: context.channel.remoteAddress?.ipAddress ?? "127.0.0.1")
    }
}

extension LocalHTTPResponse {
    /// The Hummingbird response.
    var hummingbird: Response {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            guard let field = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: field, value: value))
        }
        return Response(
            status: HTTPResponse.Status(code: status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
