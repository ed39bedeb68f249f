import EmulatorKit
import Foundation
import InkraTestSupport
import Synchronization
import Testing

/// `serve`'s stage throttling, held to API Gateway's: a token bucket per method of the stage,
/// `burst` deep, refilled at `rate` a second, checked before the authorizer; what is refused gets
/// the `THROTTLED` gateway response (template.yaml) on a REST API, `{"message":"Too Many Requests"}`
/// on an HTTP API.
/// - https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html
/// - https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-throttling.html
@Suite("The stage's throttling")
struct StageThrottleTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        let instant = Mutex(ContinuousClock.now)
        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
        var now: @Sendable () -> ContinuousClock.Instant { { self.instant.withLock { $0 } } }
    }

    @Test("A full bucket lets the burst through, then one request per 1/rate seconds, never more than the burst")
    func bucket() {
        let clock = Clock()
        let throttle = StageThrottle(StageThrottle.Limits(rate: 2, burst: 5), now: clock.now)
        let first = (0..<8).map { _ in throttle.admits(method: "POST", resource: "/questions") }
        #expect(first == [true, true, true, true, true, false, false, false])
        clock.advance(by: .milliseconds(499))
        #expect(!throttle.admits(method: "POST", resource: "/questions"))
        clock.advance(by: .milliseconds(1))
        #expect(throttle.admits(method: "POST", resource: "/questions"))
        #expect(!throttle.admits(method: "POST", resource: "/questions"))
        // Each method has its own bucket.
        #expect(throttle.admits(method: "GET", resource: "/usage"))
        // A long quiet spell refills the bucket to the burst, not beyond.
        clock.advance(by: .seconds(3600))
        #expect((0..<7).map { _ in throttle.admits(method: "POST", resource: "/questions") }.filter { $0 }.count == 5)
    }

    @Test("serve's default limits are template.yaml's: ThrottlingRateLimit and ThrottlingBurstLimit")
    func templateDefaults() throws {
        let parameters = try TemplateText().section("Parameters")
        func defaultValue(_ name: String) throws -> String {
            let start = try #require(parameters.firstIndex(of: "  \(name):"), "template.yaml has no \(name)")
            let block = parameters[(start + 1)...].prefix { $0.hasPrefix("    ") }
            return try #require(TemplateText.value("Default", in: Array(block)))
        }
        #expect(Double(try defaultValue("ThrottlingRateLimit")) == StageThrottle.Limits.template.rate)
        #expect(Int(try defaultValue("ThrottlingBurstLimit")) == StageThrottle.Limits.template.burst)
    }

    /// Runs `exec` with these options around a shell command.
    static func exec(_ options: [String], _ command: String) async throws -> ProcessResult {
        try await runEmulator(
            ["exec", "--no-cognito", "--no-console", "--no-access-log"] + options + ["--", "sh", "-c", command])
    }

    static let burstOfFive = #"""
        for i in 1 2 3 4 5; do
            curl -s -D "$TMPDIR/h$i" -o "$TMPDIR/b$i" -w '%{http_code}\n' -X POST "$INKRA_API_URL/questions" -d '{}'
        done
        curl -s -o /dev/null -w 'usage %{http_code}\n' "$INKRA_API_URL/usage"
        cat "$TMPDIR/b5"; echo; grep -i '^retry-after:' "$TMPDIR/h5" | tr -d '\r'
        """#

    @Test("serve (REST): of five requests with a burst of 3, three reach the authorizer (401), two get 429 throttled")
    func restStage() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await Self.exec(
            ["--throttle-rate", "0.001", "--throttle-burst", "3"], "TMPDIR=\(folder.path); " + Self.burstOfFive)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(5)) == ["401", "401", "401", "429", "429"], "\(result.standardOutput)")
        // Another method has its own bucket.
        #expect(lines.dropFirst(5).first == "usage 401")
        #expect(lines.dropFirst(6).first == #"{"error":"Too Many Requests","code":"throttled"}"#)
        #expect(lines.dropFirst(7).first?.lowercased() == "retry-after: 1")
        #expect(result.standardError.contains("throttle 0.001 a second, burst 3, per method"))
    }

    @Test(
        "serve (HTTP API): a throttled request gets {\"message\":\"Too Many Requests\"}; --no-throttle lets all through"
    )
    func httpStageAndOff() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let throttled = try await Self.exec(
            ["--payload", "v2", "--throttle-rate", "0.001", "--throttle-burst", "4"],
            "TMPDIR=\(folder.path); " + Self.burstOfFive)
        let lines = throttled.standardOutput.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(5)) == ["401", "401", "401", "401", "429"], "\(throttled.standardOutput)")
        #expect(lines.dropFirst(6).first == #"{"message":"Too Many Requests"}"#)
        let off = try await Self.exec(
            ["--no-throttle", "--throttle-burst", "1"], "TMPDIR=\(folder.path); " + Self.burstOfFive)
        #expect(Array(off.standardOutput.split(separator: "\n").prefix(5)) == ["401", "401", "401", "401", "401"])
        #expect(off.standardError.contains("throttle off"))
    }

    @Test("--throttle-rate and --throttle-burst are refused below their floors, naming the flag")
    func refusals() async throws {
        let rate = try await runEmulator(["serve", "--throttle-rate", "0"])
        #expect(rate.status == 2)
        #expect(rate.standardError.contains("--throttle-rate must be a positive number"))
        let burst = try await runEmulator(["serve", "--throttle-burst", "0"])
        #expect(burst.status == 2)
        #expect(burst.standardError.contains("--throttle-burst must be at least 1"))
    }
}
