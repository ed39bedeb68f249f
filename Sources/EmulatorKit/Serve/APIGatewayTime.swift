import Foundation
import InkraUsage

/// API Gateway's `requestContext.requestTime` / `time`: `10/Mar/2026:10:00:00 +0000`, always UTC.
enum APIGatewayTime {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The last second formatted, as requests in one second share their text.
    private static let lastSecond = LastSecond<String>()

    /// Formats an instant without a date formatter (this runs once per served request, and the
    /// text changes once a second).
    static func format(_ date: Date) -> String {
        lastSecond.value(at: date, compose)
    }

    private static func compose(_ date: Date) -> String {
        let civil = CivilTime(date)
        return "\(two(civil.day))/\(months[civil.month - 1])/\(civil.year):\(two(civil.hour)):\(two(civil.minute)):"
            + "\(two(civil.second)) +0000"
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
}
