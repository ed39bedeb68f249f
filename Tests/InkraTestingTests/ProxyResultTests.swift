import InkraHandlers
import InkraJSON
import InkraTesting
import Testing

@Suite("ProxyResult")
struct ProxyResultTests {
    @Test("Reads status, code, message, Retry-After (in any case) and body fields")
    func reads() throws {
        let response = HTTPError(
            .rateLimited, "Hourly limit exceeded", details: [("window", "hour")], headers: ["retry-after": "2400"])
        let result = try ProxyResult(response.response.json)
        #expect(result.statusCode == 429)
        #expect(result.code == "rate_limited")
        #expect(result.error == "Hourly limit exceeded")
        #expect(result.retryAfter == 2_400)
        #expect(result.header("Content-Type") == "application/json")
        #expect(result.body["window"] == "hour")
        #expect(result.description == "429 \(response.response.body)")
    }

    @Test("A success has no code; a result that is not a proxy response, or not JSON, is refused")
    func refusals() throws {
        let ok = try ProxyResult(ProxyResponse.json(200, ["questions": []]))
        #expect(ok.code == nil)
        #expect(ok.retryAfter == nil)
        #expect(throws: TestFailure.self) { try ProxyResult(["isAuthorized": true]) }
        #expect(throws: TestFailure.self) { try ProxyResult(ProxyResponse(statusCode: 200, body: "<html>")) }
    }
}
