import EmulatorKit
import Foundation
import InkraJSON
import InkraTime
import InkraUsage
import Testing

/// Instants of 2026-11-17 (a Tuesday), UTC.
private func at(_ hour: Int, _ minute: Int, _ second: Int = 0, day: Int = 0) -> Timestamp {
    let seconds: Int = day * 86_400 + hour * 3600 + minute * 60 + second
    return Timestamp(timeIntervalSince1970: 1_794_873_600 + TimeInterval(seconds))
}

/// Limits where only the hourly one can bite.
private let twoAnHour = Limits(monthly: 100, daily: 100, hourly: 2)

@Suite("What if by algorithm: calendar, sliding window and token bucket over the same calls")
struct WindowAlgorithmTests {
    /// Two calls at 10:59 and two at 11:00 under 2 an hour: the calendar hour resets at 11:00 and
    /// admits all four; in the rolling hour before 11:00 there are already two, and the bucket
    /// has refilled 60 s × 2/3600 = 0.03 of a token.
    @Test("A boundary burst at 10:59 and 11:00: calendar admits 4, sliding window 2, token bucket 2")
    func boundaryBurst() {
        let burst = [at(10, 59), at(10, 59, 30), at(11, 0), at(11, 0, 30)]
        #expect(
            WindowAlgorithm.calendar.decide(burst, limits: twoAnHour) == [.admitted, .admitted, .admitted, .admitted])
        #expect(
            WindowAlgorithm.slidingWindow.decide(burst, limits: twoAnHour)
                == [.admitted, .admitted, .refused(.hour), .refused(.hour)])
        #expect(
            WindowAlgorithm.tokenBucket.decide(burst, limits: twoAnHour)
                == [.admitted, .admitted, .refused(.hour), .refused(.hour)])
    }

    /// Sliding: a call counts for the hour after it, the end excluded — (t − 3600 s, t]; the
    /// refused 10:30 call takes nothing. Bucket: 1800 s refill 2/3600 × 1800 = exactly one token.
    @Test("The rolling hour ends exactly an hour after a call; a bucket refills limit/length a second")
    func edges() {
        let calls = [at(10, 0), at(10, 0), at(10, 30), at(10, 31), at(11, 0)]
        #expect(
            WindowAlgorithm.slidingWindow.decide(calls, limits: twoAnHour)
                == [.admitted, .admitted, .refused(.hour), .refused(.hour), .admitted])
        #expect(
            WindowAlgorithm.calendar.decide(calls, limits: twoAnHour)
                == [.admitted, .admitted, .refused(.hour), .refused(.hour), .admitted])
        // Bucket: 10:30 has refilled one token (admitted, 0 left); 10:31 has 0.03 (refused, taking
        // nothing); 11:00 has 30 min × 2/60 = 1 again.
        #expect(
            WindowAlgorithm.tokenBucket.decide(calls, limits: twoAnHour)
                == [.admitted, .admitted, .admitted, .refused(.hour), .admitted])
        // A minute earlier the bucket holds 0.97 of a token: refused.
        #expect(
            WindowAlgorithm.tokenBucket.decide(Array(calls.dropLast()) + [at(10, 59)], limits: twoAnHour).last
                == .refused(.hour))
    }

    /// Calendar months reset on the 1st; the sliding month is 30 days, whatever the calendar.
    @Test("A refusal names the month first; the rolling month is 30 days")
    func month() {
        let limits = Limits(monthly: 2, daily: 1, hourly: 1)
        let calls = [
            at(9, 0), at(9, 0, day: 1), at(9, 0, day: 1), at(9, 0, day: 2), at(9, 0, day: 30), at(9, 0, day: 31),
        ]
        // The third call is over both the month and the day: the month is named.
        #expect(
            WindowAlgorithm.slidingWindow.decide(calls, limits: limits)
                == [.admitted, .admitted, .refused(.month), .refused(.month), .admitted, .admitted])
        // Calendar: November has room for 2; day 30 is 17 December, a new month.
        #expect(
            WindowAlgorithm.calendar.decide(calls, limits: limits)
                == [.admitted, .admitted, .refused(.month), .refused(.month), .admitted, .admitted])
    }

    /// Alice (free, 2 an hour) bursts across 11:00; Bob (free) calls once in each hour; Carol's own
    /// monthly quota of 1 refuses her second call; a call answered 401 in the replay and a call
    /// with no user keep the replay's answer.
    @Test("redecide: per user, by tier and own quota; calls the limits did not decide keep their answer")
    func redecide() throws {
        let limits = TierLimits()
        var calls: [MeteredCall] = []
        func call(_ user: String?, _ time: Timestamp, replayed: Admission = .admitted, quota: Int? = nil) {
            calls.append(
                MeteredCall(
                    file: "\(calls.count + 1).json", requestID: "req-\(calls.count + 1)", userID: user, tier: "free",
                    recordedAt: time, recorded: .admitted, replayed: replayed, monthlyQuota: quota))
        }
        call("alice", at(10, 59))
        call("bob", at(10, 59, 10))
        call("alice", at(10, 59, 30))
        call("alice", at(11, 0))
        call("bob", at(11, 0, 10))
        call("carol", at(9, 0), quota: 1)
        call("carol", at(12, 0), quota: 1)
        call("alice", at(11, 0, 40), replayed: .other(401))
        call(nil, at(11, 0, 50))

        let sliding = WindowAlgorithm.slidingWindow.redecide(calls, limits: limits)
        #expect(
            sliding.map(\.replayed)
                == [
                    .admitted, .admitted, .admitted, .refused(.hour), .admitted, .admitted, .refused(.month),
                    .other(401), .admitted,
                ])
        #expect(WindowAlgorithm.calendar.redecide(calls, limits: limits) == calls)

        var report = WhatIfReport(calls: sliding, limits: limits)
        report.algorithm = .slidingWindow
        let free = try #require(report.tiers.first)
        #expect(free.admittedToRefusedTotal.calls == 2)
        #expect(free.admittedToRefusedTotal.users == 2)
        #expect(free.admittedToRefused[.hour]?.examples.map(\.reference) == ["req-4"])
        #expect(free.admittedToRefused[.month]?.examples.map(\.reference) == ["req-7"])
        let lines = report.text.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "  algorithm: sliding window (the same limits over the rolling hour, 24 hours and 30 days "
                    + "before each call), decided over the recorded instants"))
        #expect(
            lines.last
                == "2 calls would be admitted or refused differently; 1 call changed for other reasons than the limits."
        )
        #expect(report.json["algorithm"] == "sliding-window")
        #expect(WhatIfReport(calls: calls, limits: limits).json["algorithm"] == "calendar")
    }

    /// Calls recorded out of order (a JSON-lines file merged from two hosts) are decided in time order.
    @Test("Each user's calls are decided in recorded-time order, not file order")
    func timeOrder() {
        let calls = [at(11, 0), at(10, 59), at(10, 59, 30)].enumerated().map { index, time in
            MeteredCall(
                file: "\(index)", userID: "alice", tier: "free", recordedAt: time, recorded: .admitted,
                replayed: .admitted)
        }
        let decided = WindowAlgorithm.slidingWindow.redecide(calls, limits: TierLimits())
        #expect(decided.map(\.replayed) == [.refused(.hour), .admitted, .admitted])
    }
}
