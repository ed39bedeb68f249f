import Foundation
import InkraHandlers
import InkraJSON
import InkraTime

/// Turns replay records into what `replay` prints: a line per event (or a JSON object per event),
/// a readable diff under each mismatch, and a summary.
package enum ReplayReporter {
    /// One line per event: mark, file, function, status (with why the authorizer refused, and
    /// `(authorizer cached)` when API Gateway's cache answered for it, `(token signed by replay)`
    /// when its token was signed from recorded claims), time taken; the diff
    /// indented below.
    package static func line(for record: ReplayRecord) -> String {
        let mark = record.ok ? (record.updated ? "✎" : record.skipped != nil ? "–" : "✓") : "✗"
        let function = record.function?.rawValue ?? "-"
        var status = "-"
        if let invocation = record.invocation {
            switch invocation.outcome {
            case .failure(let error): status = "error \(error.errorMessage)"
            case .success(let json):
                if let code = json["statusCode"]?.int {
                    status = String(code)
                } else if let authorized = json["isAuthorized"]?.bool {
                    status = authorized ? "authorized" : "not authorized"
                } else if let effect = json["policyDocument"]?["Statement"]?.array?.first?["Effect"]?.string {
                    status = effect
                } else {
                    status = "ok"
                }
            }
        }
        if let refusal = record.invocation?.refusal { status += " (\(refusal))" }
        if record.invocation?.authorizer?.cached == true { status += " (authorizer cached)" }
        if record.tokenSigned { status += " (token signed by replay)" }
        var text = "\(mark) \(record.file)  \(function)  \(status)  \(milliseconds(record.duration))"
        if !record.checked && !record.updated && record.problem == nil && record.skipped == nil {
            text += "  (no expectation)"
        }
        if let skipped = record.skipped { text += "\n    \(skipped)" }
        if let problem = record.problem { text += "\n    \(problem)" }
        for mismatch in record.mismatches { text += "\n    \(mismatch)" }
        return text
    }

    /// The `--json` object of one event.
    package static func json(for record: ReplayRecord) -> JSONValue {
        var object: JSONValue = [
            "file": .string(record.file), "function": record.function.map { .string($0.rawValue) } ?? .null,
            "ok": .bool(record.ok),
        ]
        if let invocation = record.invocation {
            switch invocation.outcome {
            case .success(let json):
                object.set(json["statusCode"] ?? .null, at: ["statusCode"])
                object.set(json, at: ["response"])
            case .failure(let error):
                object.set(error.json, at: ["error"])
            }
        }
        if let refusal = record.invocation?.refusal { object.set(.string(refusal), at: ["refusal"]) }
        if let trace = record.invocation?.trace { object.set(trace, at: ["trace"]) }
        if let step = record.invocation?.authorizer {
            object.set(.string(step.cached ? "cached" : "invoked"), at: ["authorizer"])
        }
        if record.tokenSigned { object.set("signed by replay", at: ["token"]) }
        if let problem = record.problem { object.set(.string(problem), at: ["problem"]) }
        if let skipped = record.skipped { object.set(.string(skipped), at: ["skipped"]) }
        if !record.mismatches.isEmpty {
            object.set(.array(record.mismatches.map(JSONValue.string)), at: ["mismatches"])
        }
        return object
    }

    /// "`25 events: 25 passed, 0 failed in 12.3 ms`", from the counts alone.
    package static func summary(_ tally: ReplayTally, elapsed: Duration) -> String {
        var text =
            "\(tally.events) events: \(tally.events - tally.failed - tally.skipped) passed, \(tally.failed) failed"
        if tally.updated > 0 { text += ", \(tally.updated) expectations written" }
        if tally.unchecked > 0 { text += ", \(tally.unchecked) without expectations" }
        if tally.skipped > 0 { text += ", \(tally.skipped) not checkable against an endpoint" }
        text += " in \(milliseconds(elapsed))"
        return text
    }

    static func milliseconds(_ duration: Duration) -> String {
        let value = duration.milliseconds
        if value >= 1000 { return String(format: "%.2f s", value / 1000) }
        return String(format: "%.2f ms", value)
    }
}
