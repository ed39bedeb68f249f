import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import LocalUserPool

/// The console's JSON for the gateway's exchanges: a line of the live list, and all of one.
enum ConsoleJSON {
    /// One line of the live list: method, path, user, status, the authorizer's part, units, time.
    static func summary(_ entry: ConsoleFeed.Entry) -> JSONValue {
        let exchange = entry.exchange
        let authorizer: String =
            switch exchange.authorizer {
            case nil: "none"
            case .some(let step) where step.cached: "cached"
            case .some: "invoked"
            }
        return [
            "id": .number(entry.sequence),
            "requestId": .string(exchange.requestID),
            "method": .string(exchange.method),
            "path": .string(exchange.query.isEmpty ? exchange.path : "\(exchange.path)?\(exchange.query)"),
            "user": exchange.userID.map(JSONValue.string) ?? .null,
            "function": exchange.function.map { .string($0.rawValue) } ?? .null,
            "status": .number(exchange.response.status),
            "authorizer": .string(authorizer),
            "decision": .string(decision(exchange)),
            "units": exchange.unitsConsumed.map { .number($0) } ?? .null,
            "time": .string(UsageWindows.iso8601(exchange.started)),
            "milliseconds": .number(String(format: "%.2f", exchange.duration.milliseconds)),
        ]
    }

    /// All of one exchange: the summary, the event `serve` built, the authorizer's event and answer,
    /// and the response.
    static func detail(_ entry: ConsoleFeed.Entry) -> JSONValue {
        let exchange = entry.exchange
        var authorizer: JSONValue = .null
        if let step = exchange.authorizer {
            let answer: JSONValue =
                switch step.result {
                case .success(let json): json
                case .failure(let error): error.json
                }
            authorizer = ["cached": .bool(step.cached), "event": step.event ?? .null, "answer": answer]
        }
        let headers = exchange.response.headers.map { JSONValue.array([.string($0.name), .string($0.value)]) }
        return [
            "summary": summary(entry),
            "event": exchange.event ?? .null,
            "authorizer": authorizer,
            "response": [
                "status": .number(exchange.response.status),
                "headers": .array(headers),
                "body": .string(String(decoding: exchange.response.body, as: UTF8.self)),
            ],
            "trace": exchange.trace ?? .null,
            "timeline": .array(exchange.trace.map(ConsoleTimeline.rows) ?? []),
        ]
    }

    /// The authorizer's answer, in a word: `allow`, `deny`, `unauthorized` or `failed`; `none`
    /// when it was not called.
    static func decision(_ exchange: GatewayExchange) -> String {
        guard let step = exchange.authorizer else { return "none" }
        switch step.result {
        case .failure(let error): return error.errorMessage == "Unauthorized" ? "unauthorized" : "failed"
        case .success(let answer):
            if let authorized = answer["isAuthorized"]?.bool { return authorized ? "allow" : "deny" }
            let statements = answer["policyDocument"]?["Statement"]?.array ?? []
            let effects = statements.compactMap { $0["Effect"]?.string?.lowercased() }
            return effects.contains("deny") || !effects.contains("allow") ? "deny" : "allow"
        }
    }

    /// `{"error": message}`.
    static func error(_ message: String) -> JSONValue { ["error": .string(message)] }

    /// A rebuild line of `serve --watch`: `{"stage", "message", "lines"}`.
    static func rebuild(_ rebuild: ConsoleFeed.Rebuild) -> JSONValue {
        [
            "stage": .string(rebuild.stage.rawValue), "message": .string(rebuild.message),
            "lines": .array(rebuild.lines.map(JSONValue.string)),
        ]
    }

    /// The local user pool: each user (sub, email, status, tier, groups) and the groups.
    static func pool(_ pool: UserPool) -> JSONValue {
        let users = (try? pool.listUsers(filter: nil)) ?? []
        return [
            "users": .array(
                users.map { user in
                    [
                        "sub": .string(user.sub), "email": user.email.map(JSONValue.string) ?? .null,
                        "status": .string(user.status.rawValue),
                        "tier": .string(user.attributes["custom:subscription_tier"] ?? "free"),
                        "groups": .array(user.groups.map(JSONValue.string)),
                    ]
                }),
            "groups": .array(pool.settings.groups.map { .string($0.name) }),
        ]
    }
}
