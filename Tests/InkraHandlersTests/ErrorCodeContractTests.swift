import Foundation
import InkraHandlers
import InkraTestSupport
import Testing

/// docs/errors.md, ``ErrorCode`` and template.yaml's gateway responses name the same codes with
/// the same statuses: a code added in one place only fails here.
@Suite("Error codes: the docs, the code and the template agree")
struct ErrorCodeContractTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The rows of the docs' table under `heading`: (code, status, gateway response if any).
    static func documented(under heading: String) throws -> [[String]] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/errors.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## \(heading)\n").dropFirst().first)
        return section.components(separatedBy: "\n## ").first!.split(separator: "\n")
            .filter { $0.hasPrefix("| `") }
            .map { line in
                line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                    .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
            }
    }

    @Test("Every code the functions answer is documented with its status, and nothing else is")
    func functions() throws {
        let rows = try Self.documented(under: "From the functions")
        #expect(rows.map { "\($0[0]) \($0[1])" } == ErrorCode.functions.map { "\($0.rawValue) \($0.status)" })
    }

    @Test("Every gateway response of the template is documented with its code and status, and in the code")
    func gateway() throws {
        let rows = try Self.documented(under: "From API Gateway")
        let template = try TemplateText().text
        let section = try #require(template.components(separatedBy: "GatewayResponses:\n").dropFirst().first)
        // Each response: its type at eight spaces, an optional StatusCode, then its template's code.
        var answered: [String: (status: String?, code: String)] = [:]
        var current: String?
        var status: String?
        for line in section.split(separator: "\n") {
            if line.hasPrefix("        "), !line.hasPrefix("         "), line.hasSuffix(":") {
                current = String(line.trimmingCharacters(in: .whitespaces).dropLast())
                status = nil
            } else if line.hasPrefix("  ") && !line.hasPrefix("    ") {
                break
            } else if let range = line.range(of: "StatusCode: ") {
                status = String(line[range.upperBound...])
            } else if let range = line.range(of: #""code":""#), let current {
                let code = line[range.upperBound...].prefix { $0 != "\"" }
                answered[current] = (status, String(code))
            }
        }
        #expect(answered.count == ErrorCode.gateway.count)
        for (type, code) in ErrorCode.gateway {
            let expectedStatus = code.status >= 500 ? "5XX" : "4XX"
            let row = rows.first { $0[2] == type }
            #expect(row?[0] == code.rawValue, "docs/errors.md for \(type)")
            #expect(answered[type]?.code == code.rawValue, "template.yaml's \(type)")
            if let templated = answered[type]?.status {
                #expect(templated == String(code.status), "template.yaml's status for \(type)")
                #expect(row?[1] == String(code.status), "docs/errors.md's status for \(type)")
            } else {
                #expect(row?[1] == expectedStatus, "a default response keeps API Gateway's status")
            }
        }
        #expect(rows.count == ErrorCode.gateway.count)
    }

    @Test("The template's gateway answers that ask for a retry wait as long as the functions' 503 does")
    func retryAfter() throws {
        let template = try TemplateText().text
        let section = try #require(template.components(separatedBy: "GatewayResponses:\n").dropFirst().first)
        // Each response: its type at eight spaces, then its headers; THROTTLED keeps its own second.
        var waits: [String: String] = [:]
        var type = ""
        for line in section.split(separator: "\n") {
            if line.hasPrefix("        "), !line.hasPrefix("         "), line.hasSuffix(":") {
                type = String(line.dropFirst(8).dropLast())
            } else if let range = line.range(of: "Retry-After: \"'") {
                waits[type] = String(line[range.upperBound...].prefix { $0 != "'" })
            }
        }
        #expect(waits["THROTTLED"] == "1")
        let others = waits.filter { $0.key != "THROTTLED" }
        #expect(
            others.keys.sorted() == ["AUTHORIZER_CONFIGURATION_ERROR", "AUTHORIZER_FAILURE", "INTEGRATION_TIMEOUT"])
        for (response, seconds) in others {
            #expect(seconds == String(HTTPError.unavailableRetryAfter), "template.yaml's Retry-After for \(response)")
        }
    }
}
