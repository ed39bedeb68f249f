import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import Logging
import Synchronization

/// `serve --record DIR`: writes every request the local API Gateway answers as an event file with
/// its expectation, so that `replay DIR` plays a session of clicking through the app again and
/// checks every answer.
///
/// Each request becomes `DIR/<time>-<sequence>-<function>-<request id>.json` — the event `serve`
/// built, as it was (its token included: local tokens are development tokens), with
/// `x-inkra-function` and the instant it ran at as `x-inkra-recorded-at` — and its
/// `.expected.json`: the status, the headers a client acts on (`Retry-After`, `x-amzn-ErrorType`,
/// `Idempotent-Replayed`) and the body. The files sit in one folder so that name order is the
/// order the requests were answered in, across functions: a `GET /usage` after two
/// `POST /questions` replays after them. Requests no route matched, CORS preflights and bodies
/// the request model refused are not recorded: API Gateway answers them without a function.
package final class ServeRecorder: Sendable {
    /// The folder written to.
    package let directory: URL
    private let sequence: Mutex<Int>
    private let logger: Logger
    /// What the stack trusts now, for the folder's ``RecordingManifest``.
    private let trust: (@Sendable () -> RecordingManifest)?
    /// The issuers the manifest was last written with.
    private let written = Mutex<[String]?>(nil)

    /// A recorder into a folder, created if need be; numbering follows the event files already in it.
    /// - Parameters:
    ///   - directory: the folder.
    ///   - logger: where a file that cannot be written is logged.
    ///   - trust: what the stack trusts at the time of a request: written to the folder's
    ///     ``RecordingManifest`` with the first request recorded, and again when it changed (the
    ///     local user pool is trusted once its port is bound).
    /// - Throws: ``EmulatorError`` naming the folder when it cannot be created or written to.
    package init(
        directory: URL, logger: Logger = Logger(label: "inkra.serve.record"),
        trust: (@Sendable () -> RecordingManifest)? = nil
    ) throws(EmulatorError) {
        self.directory = directory
        self.logger = logger
        self.trust = trust
        let existing: [String]
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            existing = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw EmulatorError("--record: cannot create \(directory.path): \(error.localizedDescription)")
        }
        guard FileManager.default.isWritableFile(atPath: directory.path) else {
            throw EmulatorError("--record: \(directory.path) is not writable")
        }
        sequence = Mutex(existing.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".expected.json") }.count)
    }

    /// Writes one exchange; one that no function answered is skipped. A file that cannot be
    /// written is logged (naming it) and serving goes on.
    package func record(_ exchange: GatewayExchange) {
        guard let function = exchange.function, !exchange.bodyRefused, let event = Self.event(of: exchange) else {
            return
        }
        writeManifest()
        let number = sequence.withLock { value in
            value += 1
            return value
        }
        let url = directory.appendingPathComponent(
            Self.fileName(time: exchange.started, number: number, function: function, requestID: exchange.requestID))
        do {
            try Data((event.prettyJSONString + "\n").utf8).write(to: url, options: .atomic)
            let expectation = Self.expectation(of: exchange)
            try Data((expectation.prettyJSONString + "\n").utf8)
                .write(to: url.deletingPathExtension().appendingPathExtension("expected.json"), options: .atomic)
        } catch {
            logger.warning("--record: cannot write \(url.path): \(error.localizedDescription)")
        }
    }

    /// Writes the folder's manifest when what the stack trusts is not what it was last written with.
    private func writeManifest() {
        guard let trust else { return }
        let manifest = trust()
        let issuers = manifest.issuers.map(\.configuration.issuer)
        guard written.withLock({ $0 != issuers }) else { return }
        do {
            try manifest.write(into: directory)
            written.withLock { $0 = issuers }
        } catch {
            logger.warning("--record: \(error.message)")
        }
    }

    /// `2027-01-15T08-10-00.000Z-000001-generateQuestions-<request id>.json`: the time first, so
    /// that name order is time order, then the sequence, for requests answered in the same
    /// millisecond (or at a fixed `--now`).
    static func fileName(time: Timestamp, number: Int, function: FunctionName, requestID: String) -> String {
        let stamp = CivilTime.iso8601Milliseconds(time).replacingOccurrences(of: ":", with: "-")
        let id = String(
            requestID.unicodeScalars.map { scalar in
                CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar)
                    ? Character(scalar) : "_"
            })
        return "\(stamp)-\(String(format: "%06d", number))-\(function.rawValue)-\(id).json"
    }

    /// The event as `serve` built it, with the function and the instant it ran at.
    static func event(of exchange: GatewayExchange) -> JSONValue? {
        guard var event = exchange.event, event.object != nil, let function = exchange.function else { return nil }
        event.set(.string(function.rawValue), at: ["x-inkra-function"])
        event.set(.string(CivilTime.iso8601Milliseconds(exchange.started)), at: ["x-inkra-recorded-at"])
        return event
    }

    /// What replay must answer: the status, the headers a client acts on, and the body (JSON when
    /// it parses). When the function itself failed (API Gateway answered 502 for a REST API, or 500
    /// for an HTTP API whose authorizer did not fail), the expectation is that the invocation fails.
    static func expectation(of exchange: GatewayExchange) -> JSONValue {
        let response = exchange.response
        if functionFailed(exchange) { return ["error": .object(JSONObject())] }
        var expected: JSONValue = ["statusCode": .number(response.status)]
        var headers = JSONObject()
        for (name, value) in response.headers
        where ["retry-after", "x-amzn-errortype", "idempotent-replayed"].contains(name.lowercased()) {
            headers[name] = .string(value)
        }
        if !headers.pairs.isEmpty { expected.set(.object(headers), at: ["headers"]) }
        if !response.body.isEmpty {
            let body = (try? JSONParser.parse(response.body)) ?? .string(String(decoding: response.body, as: UTF8.self))
            expected.set(body, at: ["body"])
        }
        return expected
    }

    /// Whether API Gateway's answer stands for a failed function rather than a function's own
    /// answer: REST's 502 `gateway_error`, or HTTP API's 500 when the authorizer did not fail.
    private static func functionFailed(_ exchange: GatewayExchange) -> Bool {
        let status = exchange.response.status
        let body = try? JSONParser.parse(exchange.response.body)
        if status == 502, body?["code"]?.string == "gateway_error" { return true }
        guard status == 500, body?["message"]?.string == "Internal Server Error" else { return false }
        if case .failure? = exchange.authorizer?.result { return false }
        return true
    }
}
