import Foundation
import InkraHandlers
import InkraJSON

/// Events shaped as API Gateway sends them (from `sam local generate-event`), adjusted per test.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func load(_ name: String) -> JSONValue {
        do {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            return try JSONParser.parse(Array(data))
        } catch {
            fatalError("fixture \(name): \(error)")
        }
    }

    static let restTemplate = load("rest-v1-proxy.json")
    static let httpTemplate = load("http-v2-proxy.json")

    /// A REST API (v1) proxy event.
    static func rest(
        method: String = "POST",
        path: String = "/questions",
        body: String? = nil,
        base64: Bool = false,
        authorizer: JSONValue? = nil,
        headers: [String: String] = [:],
        at time: Date? = nil
    ) -> JSONValue {
        var event = restTemplate
        event.set(.string(method), at: ["httpMethod"])
        event.set(.string(path), at: ["path"])
        event.set(.string(method), at: ["requestContext", "httpMethod"])
        event.set(body.map { .string(base64 ? Data($0.utf8).base64EncodedString() : $0) } ?? .null, at: ["body"])
        event.set(.bool(base64), at: ["isBase64Encoded"])
        event.set(authorizer, at: ["requestContext", "authorizer"])
        for (name, value) in headers {
            event.set(.string(value), at: ["headers", name])
            event.set([.string(value)], at: ["multiValueHeaders", name])
        }
        if let time {
            event.set(.number(Int(time.timeIntervalSince1970 * 1000)), at: ["requestContext", "requestTimeEpoch"])
        }
        return event
    }

    /// An HTTP API (v2) proxy event.
    static func http(
        method: String = "POST",
        path: String = "/questions",
        body: String? = nil,
        base64: Bool = false,
        authorizer: JSONValue? = nil,
        headers: [String: String] = [:],
        at time: Date? = nil
    ) -> JSONValue {
        var event = httpTemplate
        event.set(.string(path), at: ["rawPath"])
        event.set(.string("\(method) \(path)"), at: ["routeKey"])
        event.set(.string(method), at: ["requestContext", "http", "method"])
        event.set(.string(path), at: ["requestContext", "http", "path"])
        event.set(body.map { .string(base64 ? Data($0.utf8).base64EncodedString() : $0) }, at: ["body"])
        event.set(.bool(base64), at: ["isBase64Encoded"])
        event.set(authorizer, at: ["requestContext", "authorizer"])
        for (name, value) in headers { event.set(.string(value), at: ["headers", name.lowercased()]) }
        if let time {
            event.set(.number(Int(time.timeIntervalSince1970 * 1000)), at: ["requestContext", "timeEpoch"])
        }
        return event
    }

    /// A REST Lambda authorizer's context, as API Gateway passes it on (values as strings).
    static func lambdaContext(_ user: String, tier: String = "free", quota: Int? = nil, email: String? = nil)
        -> JSONValue
    {
        var context: JSONValue = ["principalId": .string(user), "userId": .string(user), "tier": .string(tier)]
        if let quota { context.set(.string(String(quota)), at: ["quota"]) }
        if let email { context.set(.string(email), at: ["email"]) }
        return context
    }
}

/// Parses `2026-03-10T10:00:00Z` for tests.
func instant(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else { fatalError("bad test date \(text)") }
    return date
}

/// A clock a test moves by hand.
final class ManualClock: Sendable {
    private let state: LockedValue<Date>

    init(_ start: String) { state = LockedValue(instant(start)) }

    var now: Date { state.value }
    func set(_ text: String) { state.value = instant(text) }
    var closure: @Sendable () -> Date { { [state] in state.value } }
}

/// A value behind a lock.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func withValue<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }
}
