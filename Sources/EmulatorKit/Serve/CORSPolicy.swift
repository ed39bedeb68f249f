/// API Gateway's CORS configuration: which origins may call the API from a browser, and the
/// preflight answer it gives without calling a function or the authorizer.
package struct CORSPolicy: Sendable, Hashable {
    /// Allowed origins; `*` allows any.
    package var allowedOrigins: [String]
    /// Headers a browser may send.
    package var allowedHeaders = ["Authorization", "Content-Type", "Idempotency-Key", "X-Amz-Date", "X-Api-Key"]
    /// Headers a browser may read from a response.
    package var exposedHeaders = ["Retry-After", "Idempotent-Replayed"]
    /// Seconds a browser may keep a preflight answer.
    package var maxAge = 600

    /// A policy for these origins (`["*"]` allows any).
    package init(allowedOrigins: [String] = ["*"]) {
        self.allowedOrigins = allowedOrigins
    }

    /// Whether CORS is configured at all.
    package var isEnabled: Bool { !allowedOrigins.isEmpty }

    /// The `Access-Control-Allow-Origin` value for a request's `Origin`, or `nil` when not allowed.
    func allowOrigin(for origin: String?) -> String? {
        guard let origin, isEnabled else { return nil }
        if allowedOrigins.contains("*") { return "*" }
        return allowedOrigins.contains(origin) ? origin : nil
    }

    /// The preflight answer when the request is one (`OPTIONS` with `Origin` and
    /// `Access-Control-Request-Method`): 204, with the allow headers when the origin is allowed.
    func preflight(_ request: LocalHTTPRequest, methods: [String]) -> LocalHTTPResponse? {
        guard isEnabled, request.method == "OPTIONS", request.header("Origin") != nil,
            request.header("Access-Control-Request-Method") != nil
        else { return nil }
        guard let origin = allowOrigin(for: request.header("Origin")) else {
            return LocalHTTPResponse(status: 204)
        }
        var headers: [(name: String, value: String)] = [
            ("Access-Control-Allow-Origin", origin),
            ("Access-Control-Allow-Methods", (methods + ["OPTIONS"]).joined(separator: ",")),
            ("Access-Control-Allow-Headers", allowedHeaders.joined(separator: ",")),
            ("Access-Control-Max-Age", String(maxAge)),
        ]
        if origin != "*" { headers.append(("Vary", "Origin")) }
        return LocalHTTPResponse(status: 204, headers: headers)
    }

    /// Adds the CORS headers of an actual (non-preflight) response.
    func decorate(_ response: inout LocalHTTPResponse, for request: LocalHTTPRequest) {
        guard let origin = allowOrigin(for: request.header("Origin")) else { return }
        response.headers.append(("Access-Control-Allow-Origin", origin))
        response.headers.append(("Access-Control-Expose-Headers", exposedHeaders.joined(separator: ",")))
        if origin != "*" { response.headers.append(("Vary", "Origin")) }
    }
}
