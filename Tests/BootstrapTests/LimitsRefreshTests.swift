import Foundation
import InkraTime
import InkraUsage
import Logging
import Synchronization
import Testing

@testable import InkraRuntime

/// `LimitsRefresh` on an injected clock: the parameter is read at most once per max age of the
/// invocations' instants, and a failed or invalid read keeps the last good limits.
@Suite("Limits read again while warm: at most once per max age, the last good ones kept")
struct LimitsRefreshTests {
    static func limits(_ monthly: Int) -> String { #"{"free":{"monthly":\#(monthly),"daily":5,"hourly":4}}"# }

    /// A parameter whose answers a test sets, counting the reads.
    final class Parameter: Sendable {
        let answer = Mutex<Result<String, AWSFailure>>(.success(LimitsRefreshTests.limits(9)))
        let reads = Mutex(0)

        func read() throws -> String {
            reads.withLock { $0 += 1 }
            return try answer.withLock { try $0.get() }
        }
    }

    struct AWSFailure: Error {}

    static func refresh(_ parameter: Parameter) throws -> LimitsRefresh {
        LimitsRefresh(
            source: LimitsSource(name: "SSM parameter /inkra/limits") { try Array(parameter.read().utf8) },
            limits: try TierLimits(json: Array(limits(9).utf8)), maxAge: 60, logger: Logger(label: "test"))
    }

    static let start = Timestamp(timeIntervalSince1970: 1_795_780_800)

    static func monthly(_ refresh: LimitsRefresh, at seconds: TimeInterval) async -> Int? {
        await refresh.limits(at: start.addingTimeInterval(seconds)).tiers["free"]?.monthly
    }

    @Test("Read again only once the last read is the max age old")
    func atMostOncePerMaxAge() async throws {
        let parameter = Parameter()
        let refresh = try Self.refresh(parameter)
        for seconds in [0.0, 1, 30, 59.999] { _ = await Self.monthly(refresh, at: seconds) }
        #expect(parameter.reads.withLock { $0 } == 0, "the limits read at start are kept for the max age")
        parameter.answer.withLock { $0 = .success(Self.limits(12)) }
        #expect(await Self.monthly(refresh, at: 60) == 12)
        #expect(await Self.monthly(refresh, at: 119) == 12)
        #expect(parameter.reads.withLock { $0 } == 1)
        #expect(await Self.monthly(refresh, at: 120) == 12)
        #expect(parameter.reads.withLock { $0 } == 2)
    }

    @Test("A failed or invalid read keeps the last good limits, and waits another max age")
    func brokenReadsChangeNothing() async throws {
        let parameter = Parameter()
        let refresh = try Self.refresh(parameter)
        _ = await Self.monthly(refresh, at: 0)
        parameter.answer.withLock { $0 = .failure(AWSFailure()) }
        #expect(await Self.monthly(refresh, at: 60) == 9)
        parameter.answer.withLock { $0 = .success(#"{"free":{"monthly":"many"}}"#) }
        #expect(await Self.monthly(refresh, at: 100) == 9)
        #expect(parameter.reads.withLock { $0 } == 1, "no read before another max age")
        #expect(await Self.monthly(refresh, at: 120) == 9)
        parameter.answer.withLock { $0 = .success("{not json") }
        #expect(await Self.monthly(refresh, at: 180) == 9)
        parameter.answer.withLock { $0 = .success(Self.limits(15)) }
        #expect(await Self.monthly(refresh, at: 240) == 15)
        #expect(parameter.reads.withLock { $0 } == 4)
    }
}
