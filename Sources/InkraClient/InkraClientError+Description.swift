import Foundation

extension InkraClientError: LocalizedError {
    /// A sentence the app can show its user as it is (in English): what happened and what they
    /// can do, never a code or a status alone. `localizedDescription` gives the same text.
    public var errorDescription: String? {
        switch self {
        case .quotaExceeded(let limit, _, let resetDate, _, let upgradeURL):
            let date = resetDate.formatted(Self.resetDateStyle)
            return "You have used this month's \(limit) interview\(limit == 1 ? "" : "s"). More are available from "
                + "\(date)\(upgradeURL == nil ? "" : ", or upgrade for more now")."
        case .rateLimited(let window, let limit, let retryAfter):
            return "You have reached the limit of \(limit) interview\(limit == 1 ? "" : "s") per \(window.rawValue). "
                + "Try again in \(Self.wait(retryAfter))."
        case .signedOut:
            return "You have been signed out. Please sign in again."
        case .accessDenied:
            return "This account cannot generate interview questions. Please contact support."
        case .invalidRequest(let message):
            return "The app sent a request the server could not accept (\(message)). Please update the app."
        case .idempotencyKeyReused:
            return "The app sent a request the server could not accept (a repeated request differed). "
                + "Please try again."
        case .inProgress(let retryAfter):
            return "Your previous request is still being answered. Try again in \(Self.wait(retryAfter))."
        case .unavailable(let retryAfter):
            return "The service is busy and nothing was counted. Try again "
                + (retryAfter.map { "in \(Self.wait($0))." } ?? "in a few minutes.")
        case .throttled(let retryAfter):
            return "Too many requests are being made right now. Try again "
                + (retryAfter.map { "in \(Self.wait($0))." } ?? "in a moment.")
        case .generationFailed:
            return "The questions could not be generated, and nothing was counted. Please try again."
        case .serverFailure(let status, let code):
            return "Something went wrong on the server (\(code), HTTP \(status)). You are still signed in; "
                + "please try again later."
        case .requestRejected(let status):
            return "The server refused the request (HTTP \(status)). Please update the app."
        case .network:
            return "The server could not be reached. Check the connection and try again."
        case .unexpected(let status, let code):
            return "The server gave an answer this version of the app does not understand (HTTP \(status)"
                + (code.map { ", \($0)" } ?? "") + "). Updating the app may help."
        }
    }

    /// The reset date as a person reads it, in the UTC day the month starts on (a user west of
    /// Greenwich would otherwise read the day before).
    private static var resetDateStyle: Date.FormatStyle {
        var style = Date.FormatStyle(date: .long, time: .omitted)
        style.timeZone = TimeZone(identifier: "UTC")!
        return style
    }

    /// A wait in words, rounded up: "45 seconds", "1 minute", "40 minutes", "2 hours".
    static func wait(_ seconds: Int) -> String {
        func count(_ value: Int, _ unit: String) -> String { "\(value) \(unit)\(value == 1 ? "" : "s")" }
        if seconds < 60 { return count(max(seconds, 1), "second") }
        if seconds < 3600 { return count((seconds + 59) / 60, "minute") }
        return count((seconds + 3599) / 3600, "hour")
    }
}
