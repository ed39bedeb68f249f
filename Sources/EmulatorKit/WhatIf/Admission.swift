import InkraHandlers
import InkraJSON
import InkraUsage

/// What became of one metered call (`generateQuestions`): admitted, refused by a usage window, or
/// something that is not an admission decision at all (a 400, a 401, a failure).
package enum Admission: Sendable, Hashable {
    /// The call was answered 200: a unit was consumed.
    case admitted
    /// The call was refused with 429 by a usage window (`nil` when the recording does not say
    /// which).
    case refused(UsageWindow?)
    /// Any other answer: a status that is no admission decision (400, 401, 403, 5xx, an API
    /// Gateway 429), or `nil` when the invocation failed.
    case other(Int?)

    /// Whether the limits decided this call.
    package var isDecision: Bool {
        if case .other = self { return false }
        return true
    }

    /// The window of a refusal.
    package var window: UsageWindow? {
        if case .refused(let window) = self { return window }
        return nil
    }

    /// Reads an answer: its status and parsed body (docs/errors.md). A 429 is a limits refusal
    /// when its body names the window (`window`), or says it with `quota_exceeded` / `rate_limited`
    /// or the function's English message; API Gateway's own 429 (`throttled`) is not.
    /// - Parameters:
    ///   - status: the proxy response's status.
    ///   - body: its body parsed as JSON (`nil` when it has none or is not JSON).
    package init(status: Int?, body: JSONValue?) {
        switch status {
        case 200?:
            self = .admitted
        case 429?:
            if let window = Self.window(in: body) {
                self = .refused(window)
            } else if let code = body?["code"]?.string, code == "quota_exceeded" || code == "rate_limited" {
                self = .refused(code == "quota_exceeded" ? .month : nil)
            } else if body == nil || body?["code"] == nil && body?["error"] == nil && body?["message"] == nil {
                self = .refused(nil)
            } else {
                self = .other(429)
            }
        default:
            self = .other(status)
        }
    }

    /// The admission of an invocation's result, as replay got it.
    package init(_ invocation: Invocation) {
        switch invocation.outcome {
        case .failure:
            self = .other(nil)
        case .success(let result):
            self.init(status: result["statusCode"]?.int, body: Self.parsedBody(result["body"]))
        }
    }

    /// The admission a recorded expectation (`<name>.expected.json`) holds, or `nil` when it says
    /// nothing of the status.
    package init?(expectation: JSONValue) {
        if expectation["error"] != nil {
            self = .other(nil)
            return
        }
        guard let status = expectation["statusCode"]?.int else { return nil }
        self.init(status: status, body: Self.parsedBody(expectation["body"]))
    }

    /// A body as a proxy response or an expectation holds it: a JSON string, or already JSON.
    static func parsedBody(_ body: JSONValue?) -> JSONValue? {
        guard let body else { return nil }
        guard let text = body.string else { return body }
        return try? JSONParser.parse(text)
    }

    private static func window(in body: JSONValue?) -> UsageWindow? {
        guard let body else { return nil }
        if let name = body["window"]?.string, let window = UsageWindow(rawValue: name) { return window }
        switch body["error"]?.string {
        case "Monthly quota exceeded"?: return .month
        case "Daily limit exceeded"?: return .day
        case "Hourly limit exceeded"?: return .hour
        default: return nil
        }
    }
}
