import EmulatorKit
import HTTPTypes
import Hummingbird
import NIOCore

extension LocalHTTPRequest {
    /// Reads a Hummingbird request, body and all, up to `limit` bytes.
    /// - Returns: the request, or `nil` when its body is larger than `limit`.
    static func read(_ request: Request, context: ServeRequestContext, limit: Int) async -> LocalHTTPRequest? {
        var request = request
        guard let buffer = try? await request.collectBody(upTo: limit) else { return nil }
        return LocalHTTPRequest(
            method: request.method.rawValue,
            path: request.uri.path,
            query: request.uri.query ?? "",
            headers: request.headers.map { ($0.name.rawName, $0.value) },
            body: Array(buffer: buffer),
            sourceIP: context.remoteAddress?.ipAddress ?? "127.0.0.1"
        )
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
            status: HTTPResponse.Status(code: status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}
