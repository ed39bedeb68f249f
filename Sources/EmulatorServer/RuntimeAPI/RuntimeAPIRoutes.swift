import EmulatorKit
import Foundation
import HTTPTypes
import Hummingbird
import InkraTime
import NIOCore

/// The Runtime API's routes, as Lambda documents them
/// (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html):
///
/// | request | answer |
/// | --- | --- |
/// | `GET /2018-06-01/runtime/invocation/next` | 200, the next event, once there is one (a long poll) |
/// | `POST /2018-06-01/runtime/invocation/{id}/response` | 202; 400 `InvalidRequestID` for an unknown id |
/// | `POST /2018-06-01/runtime/invocation/{id}/error` | 202; 400 `InvalidRequestID` for an unknown id |
/// | `POST /2018-06-01/runtime/init/error` | 202; every invocation then fails with it |
/// | anything else | 404 `NotFound` |
struct RuntimeAPIRoutes: Sendable {
    let queue: RuntimeQueue

    /// Larger than any answer Lambda takes (6 MB); the runtime is the emulator's own child.
    static let bodyLimit = 64 << 20

    var router: Router<ServeRequestContext> {
        let router = Router(context: ServeRequestContext.self)
        router.add(middleware: NotFoundAsJSON())
        let runtime = router.group("2018-06-01/runtime")
        runtime.get("invocation/next") { _, context in await next(context) }
        runtime.post("invocation/:id/response") { request, context in
            let body = try await Self.body(of: request)
            return await complete(context, with: .response(body))
        }
        runtime.post("invocation/:id/error") { request, context in
            let body = try await Self.body(of: request)
            let type = request.headers[.functionErrorType] ?? "Unhandled"
            return await complete(context, with: .error(type: type, body: body))
        }
        runtime.post("init/error") { request, _ in
            let body = try await Self.body(of: request)
            let type = request.headers[.functionErrorType] ?? "Runtime.InitError"
            await queue.failInitialization(.initializationFailed(type: type, body: body))
            return Self.json(.accepted, #"{"status":"OK"}"#)
        }
        return router
    }

    /// The long poll: the next invocation, or a dropped connection when the server closes (or a
    /// test asked for one).
    private func next(_ context: ServeRequestContext) async -> Response {
        guard let next = await queue.next() else {
            context.channel.close(promise: nil)
            return Response(status: .serviceUnavailable)
        }
        let headers: HTTPFields = [
            .requestID: next.requestID,
            .deadline: String(Int64(next.deadline.timeIntervalSince1970 * 1000)),
            .functionARN: next.functionARN,
            .traceID: next.traceID,
            .contentType: "application/json",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: next.event)))
    }

    private func complete(_ context: ServeRequestContext, with outcome: RuntimeOutcome) async -> Response {
        guard let id = context.parameters.get("id"), await queue.complete(id, with: outcome) else {
            return Self.json(.badRequest, #"{"errorMessage":"Invalid request ID","errorType":"InvalidRequestID"}"#)
        }
        return Self.json(.accepted, #"{"status":"OK"}"#)
    }

    private static func body(of request: Request) async throws -> [UInt8] {
        var request = request
        return Array(buffer: try await request.collectBody(upTo: bodyLimit))
    }

    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}

/// Lambda's JSON 404 for a request the Runtime API does not have (an unknown path, or a known one
/// with another method), in place of Hummingbird's own.
struct NotFoundAsJSON: RouterMiddleware {
    func handle(
        _ request: Request, context: ServeRequestContext,
        next: @concurrent (Request, ServeRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            return RuntimeAPIRoutes.json(.notFound, #"{"errorMessage":"Not found","errorType":"NotFound"}"#)
        }
    }
}

extension HTTPField.Name {
    fileprivate static let requestID = HTTPField.Name("Lambda-Runtime-Aws-Request-Id")!
    fileprivate static let deadline = HTTPField.Name("Lambda-Runtime-Deadline-Ms")!
    fileprivate static let functionARN = HTTPField.Name("Lambda-Runtime-Invoked-Function-Arn")!
    fileprivate static let traceID = HTTPField.Name("Lambda-Runtime-Trace-Id")!
    fileprivate static let functionErrorType = HTTPField.Name("Lambda-Runtime-Function-Error-Type")!
}
