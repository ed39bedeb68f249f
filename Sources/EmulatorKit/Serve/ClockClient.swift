import Foundation
import HTTPText
import InkraJSON
import NIOHTTP1
import OutboundHTTP

/// `inkra-emulator clock`: reads or moves a running `serve`'s clock through `/_inkra/clock`.
package enum ClockClient {
    /// Sends `body` (or a `GET` when `nil`) to `serve`'s clock.
    /// - Returns: the clock's state, `{"now": …, "virtual": …}`.
    /// - Throws: ``EmulatorError`` naming the server and what it answered.
    package static func send(_ body: JSONValue?, to serve: HTTPURL) async throws(EmulatorError) -> JSONValue {
        let url = serve.appendingPathComponent("_inkra").appendingPathComponent("clock")
        let request =
            body.map {
                OutboundRequest(
                    method: .POST, url: url, headers: [("Content-Type", "application/json")], body: $0.jsonBytes)
            }
            ?? OutboundRequest(url: url)
        let response: OutboundResponse
        do {
            response = try await OutboundHTTPClient().execute(request, timeout: .seconds(10))
        } catch {
            throw EmulatorError(
                "cannot reach serve at \(serve.absoluteString): \(error) (is it running? pass --serve URL)")
        }
        let answer = try? JSONParser.parse(response.body)
        guard response.status == 200, let answer else {
            let message = answer?["error"]?.string ?? String(decoding: response.body.prefix(200), as: UTF8.self)
            throw EmulatorError("serve at \(serve.absoluteString) answered \(response.status): \(message)")
        }
        return answer
    }
}
