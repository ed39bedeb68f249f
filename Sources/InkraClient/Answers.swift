import Foundation

/// How long the generated questions should run, as `POST /questions` takes it (`length`).
public enum QuestionLength: String, Sendable, Codable, CaseIterable {
    /// 3 questions unless `count` says otherwise.
    case short
    /// 5 questions unless `count` says otherwise: the server's default.
    case medium
    /// 8 questions unless `count` says otherwise.
    case long
}

/// A usage window that is not the month: the day (UTC) or the hour.
public enum LimitWindow: String, Sendable, Codable, CaseIterable {
    /// The calendar month (UTC).
    case month
    /// The UTC day.
    case day
    /// The UTC hour.
    case hour
}

/// The month's figures, as every answer that carries usage gives them.
public struct MonthlyUsage: Sendable, Codable, Equatable {
    /// Units used this month.
    public var used: Int
    /// The month's limit.
    public var limit: Int
    /// Units left this month, never below zero.
    public var remaining: Int

}

/// The day's or the hour's figures, with when the window starts again.
public struct WindowUsage: Sendable, Codable, Equatable {
    /// Units used in this window.
    public var used: Int
    /// The window's limit.
    public var limit: Int
    /// When the window starts again (the next UTC midnight, or the next UTC hour).
    public var resetAt: Date

}

/// The caller's usage, as `GET /usage` answers it: the month, the day and the hour, read at once.
///
/// `Codable` in its own shape (not the API's), for an app that stores it.
public struct Usage: Sendable, Codable, Equatable {
    /// The month's figures.
    public var monthly: MonthlyUsage
    /// The first instant (UTC) of the next month, when the monthly quota starts again.
    public var resetDate: Date
    /// The caller's tier (`free`, `premium`), as the server resolved it.
    public var tier: String
    /// The UTC day's figures.
    public var daily: WindowUsage
    /// The UTC hour's figures.
    public var hourly: WindowUsage

}

/// The answer to `generateQuestions`: the questions and the month's usage after the call.
public struct GeneratedQuestions: Sendable, Equatable {
    /// Exactly the number of distinct questions asked for.
    public var questions: [String]
    /// The month's usage after this call.
    public var usage: MonthlyUsage
    /// Whether the server gave back the recorded answer of an earlier attempt of this call
    /// (`Idempotent-Replayed: true`): the call was charged once, by that attempt.
    public var replayed: Bool

}
