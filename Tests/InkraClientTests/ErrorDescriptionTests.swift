import Foundation
import InkraClient
import Testing

/// `InkraClientError` is a `LocalizedError`: `localizedDescription`, which an app shows, is a
/// sentence for its user, never Foundation's "The operation could not be completed. (… error 1.)".
@Suite("InkraClientError: text an app can show")
struct ErrorDescriptionTests {
    static let reset = Date(timeIntervalSince1970: 1_775_001_600)  // 2026-04-01T00:00:00Z

    static let errors: [InkraClientError] = [
        .quotaExceeded(
            limit: 5, used: 5, resetDate: reset, retryAfter: 100, upgradeURL: URL(string: "https://x.example")),
        .rateLimited(window: .day, limit: 3, retryAfter: 2_400), .signedOut, .accessDenied,
        .invalidRequest(message: "topic is required"), .idempotencyKeyReused, .inProgress(retryAfter: 2),
        .unavailable(retryAfter: nil), .throttled(retryAfter: 1), .generationFailed,
        .serverFailure(status: 500, code: "internal_error"), .requestRejected(status: 413),
        .network(code: URLError.Code.timedOut.rawValue), .unexpected(status: 418, code: "teapot"),
    ]

    @Test("every case reads as a sentence of its own", arguments: errors)
    func sentence(error: InkraClientError) {
        let text = error.localizedDescription
        #expect(text == error.errorDescription)
        #expect(!text.contains("The operation could not be completed") && !text.contains("InkraClientError"), "\(text)")
        #expect(text.first?.isUppercase == true && text.hasSuffix("."), "\(text)")
    }

    @Test("limits say when: the month's reset date (its UTC day), the wait in minutes or hours")
    func when() {
        let quota = Self.errors[0].localizedDescription
        #expect(quota.hasPrefix("You have used this month's 5 interviews. More are available from "), "\(quota)")
        #expect(quota.contains("2026") && quota.contains("1") && quota.hasSuffix(", or upgrade for more now."))
        #expect(!quota.contains("March"), "the UTC day, not the day before west of Greenwich: \(quota)")
        #expect(
            Self.errors[1].localizedDescription
                == "You have reached the limit of 3 interviews per day. Try again in 40 minutes.")
        #expect(
            InkraClientError.rateLimited(window: .hour, limit: 1, retryAfter: 3_601).localizedDescription
                == "You have reached the limit of 1 interview per hour. Try again in 2 hours.")
        #expect(
            InkraClientError.unavailable(retryAfter: 30).localizedDescription
                == "The service is busy and nothing was counted. Try again in 30 seconds.")
    }
}
