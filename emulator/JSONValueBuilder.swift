import InkraHandlers
import InkraJSON
import InkraUsage

/// What `usage` prints.
enum JSONValueBuilder {
    static func refused(day: String, users: [String]) -> String {
        JSONValue.object(["date": .string(day), "users": .array(users.map(JSONValue.string))]).prettyJSONString
    }

    static func usage(user: String, report: UsageReport) -> String {
        func window(_ usage: WindowUsage) -> JSONValue {
            [
                "used": .number(usage.used), "limit": .number(usage.limit), "remaining": .number(usage.remaining),
                "resetAt": .string(UsageWindows.iso8601(usage.resetsAt)),
            ]
        }
        let value: JSONValue = [
            "user": .string(user),
            "month": window(report.monthly),
            "day": window(report.daily),
            "hour": window(report.hourly),
        ]
        return value.prettyJSONString
    }
}
