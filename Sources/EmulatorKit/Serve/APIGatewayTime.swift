import Foundation
import InkraTime
import InkraUsage

/// API Gateway's `requestContext.requestTime` / `time`: `10/Mar/2026:10:00:00 +0000`, always UTC.
enum APIGatewayTime {
    /// Formats an instant (the package's one formatter, ``CivilTime``).
    static func format(_ date: Date) -> String {
        CivilTime.apiGatewayTime(date)
    }
}
