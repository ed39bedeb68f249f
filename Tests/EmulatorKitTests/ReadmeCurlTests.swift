import Foundation
import InkraTestSupport
import Testing

/// README's curl examples, run as written against the local stack: they send the
/// `Content-Type: application/json` the REST API's request model applies to, so a body the model
/// refuses is API Gateway's 400 `request_rejected` before any function runs.
@Suite("README's curl examples (spawned, under exec)")
struct ReadmeCurlTests {
    @Test("Each POST /questions example answers 200; with a body the model refuses, 400 request_rejected")
    func postQuestions() async throws {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let examples = readme.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix("curl -X POST localhost:3000/questions")
        }
        #expect(examples.count == 2, "\(examples)")
        let token = try await runEmulator(["token", "--sub", "readme-curl"]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        for example in examples {
            #expect(example.contains(#"-H "Content-Type: application/json""#), "\(example)")
            let asWritten = example.replacingOccurrences(of: "localhost:3000", with: #""$INKRA_API_URL""#)
                .replacingOccurrences(of: "curl -X POST", with: #"curl -s -w ' %{http_code}\n' -X POST"#)
            let refused = asWritten.replacingOccurrences(
                of: #"'{"topic":"my first job"}'"#, with: #"'{"topic":""}'"#)
            #expect(refused != asWritten)
            let result = try await runEmulator([
                "exec", "--no-cognito", "--no-console", "--no-access-log", "--", "/usr/bin/env", "TOKEN=\(token)",
                "token=\(token)", "sh", "-c", asWritten + "\n" + refused,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(result.standardOutput)")
            #expect(lines.first?.hasSuffix(" 200") == true && lines.first?.contains("questions") == true, "\(lines)")
            #expect(
                lines.last?.hasSuffix(" 400") == true && lines.last?.contains("request_rejected") == true, "\(lines)")
        }
    }
}
