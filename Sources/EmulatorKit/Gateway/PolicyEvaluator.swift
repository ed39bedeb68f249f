import InkraHandlers
import InkraJSON

/// Decides whether an IAM policy from an authorizer lets a request through, as API Gateway does:
/// an explicit `Deny` that matches wins; otherwise a matching `Allow` is needed.
enum PolicyEvaluator {
    static func allows(_ document: JSONValue, resource: String) -> Bool {
        let statements = document["Statement"]?.array ?? (document["Statement"].map { [$0] } ?? [])
        var allowed = false
        for statement in statements {
            guard matches(statement["Action"], "execute-api:Invoke"), matches(statement["Resource"], resource) else {
                continue
            }
            switch statement["Effect"]?.string?.lowercased() {
            case "deny": return false
            case "allow": allowed = true
            default: continue
            }
        }
        return allowed
    }

    private static func matches(_ patterns: JSONValue?, _ value: String) -> Bool {
        let list = patterns?.array?.compactMap(\.string) ?? patterns?.string.map { [$0] } ?? []
        return list.contains { glob($0, value) }
    }

    /// IAM wildcards: `*` any run of characters, `?` one character; case-sensitive.
    static func glob(_ pattern: String, _ value: String) -> Bool {
        let p = Array(pattern.unicodeScalars)
        let v = Array(value.unicodeScalars)
        var pi = 0
        var vi = 0
        var star = -1
        var mark = 0
        while vi < v.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == v[vi]) {
                pi += 1
                vi += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi
                mark = vi
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                vi = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
