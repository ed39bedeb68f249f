import InkraJSON
import InkraTime

/// When API Gateway received a request, as its events say it.
package enum RequestTime {
    /// API Gateway's receive time in an event: `requestContext.requestTimeEpoch` (REST, and REST
    /// `REQUEST` authorizers) or `requestContext.timeEpoch` (HTTP API), in milliseconds.
    package static func received(in event: JSONValue) -> Timestamp? {
        guard let context = event["requestContext"],
            let milliseconds = (context["requestTimeEpoch"] ?? context["timeEpoch"])?.double
        else { return nil }
        return Timestamp(timeIntervalSince1970: milliseconds / 1000)
    }
}
