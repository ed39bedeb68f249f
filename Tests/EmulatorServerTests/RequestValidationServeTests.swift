import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers
import InkraJSON
import NIOHTTP1
import SingleTable
import Testing

/// serve's REST API checks bodies as template.yaml's request validator does ("Request validation
/// for REST APIs in API Gateway": 400, the integration not called).
@Suite("serve: request validation from the request models")
struct RequestValidationServeTests {
    @Test("An invalid body: 400 request_rejected, nothing charged, the access log says so; a valid body passes")
    func refusesWithoutInvoking() async throws {
        try await ServeFixture.run(ServeFixture.settings(validatesBodies: true)) { served in
            let token = try ServeFixture.token("validated", tier: "premium")
            let refused = try await served.generate(token: token, body: #"{"topic":"a","length":"epic"}"#)
            #expect(refused.status == 400)
            #expect(refused.text == #"{"error":"Invalid request body","code":"request_rejected"}"#)
            #expect(served.stack.memoryTable?.snapshot().isEmpty == true)
            let line = try #require(served.accessLog.lines.last)
            #expect(line.contains("\"POST /questions HTTP/1.1\" 400 "))
            #expect(line.contains("validation=refused"))
            #expect(!line.contains("epic"))

            let usage = try await served.send(
                .GET, served.endpoints.api, path: "/usage", headers: [("Authorization", "Bearer \(token)")])
            #expect(try usage.json["used"] == 0)

            // What only the function can refuse still reaches it: 400 invalid_request, nothing charged.
            let blank = try await served.generate(token: token, body: #"{"topic":"   "}"#)
            #expect(blank.status == 400)
            #expect(try blank.json["code"] == "invalid_request")

            let valid = try await served.generate(token: token)
            #expect(valid.status == 200)
            #expect(try valid.json["usage"]?["used"] == 1)
            #expect(served.accessLog.lines.last?.contains("validation=") == false)
        }
    }
}
