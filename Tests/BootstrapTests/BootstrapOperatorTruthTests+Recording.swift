import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraUsage
import Testing

// Recording in a production that keeps its limits in SSM (issue #50): with
// `INKRA_LIMITS_PARAMETER` set, every function runs behind the limits refresh, and the recorder
// must still know the authorizer behind it, or `import --with-tokens` gets no claims.
extension BootstrapOperatorTruthTests {
    @Test(
        "Under INKRA_LIMITS_PARAMETER the authorizer's recordings hold the claims it verified, before and after a refresh",
        .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
    func recordingUnderTheLimitsRefresh() async throws {
        let endpoint = try await MotoEndpoint.quietURL()
        let name = "/inkra/recorded-" + UUID().uuidString.prefix(8)
        try await Self.put(name, Self.limits(monthly: 9), endpoint)
        var settings = BootstrapTokenRecordingTests.settings().merging(Self.aws(endpoint)) { _, new in new }
        settings["INKRA_LIMITS_PARAMETER"] = name
        settings["INKRA_LIMITS_MAX_AGE"] = "60"
        let start = BootstrapTokenRecordingTests.start
        let token = try BootstrapTokenRecordingTests.token("lr-premium", issued: start - 10, tier: "premium", quota: 40)
        var answers: [String] = []
        let printed = try await BuiltBootstrap.session("authorizer", settings) { invoke in
            for seconds in [start, start + 61] {
                if case .response(let bytes) = await invoke(
                    BootstrapTokenRecordingTests.authorizerEvent(token, at: seconds))
                {
                    answers.append(String(decoding: bytes, as: UTF8.self))
                }
                // The second call comes past the max age: the parameter is read again, and the
                // authorizer built again with the new limits.
                try await Self.put(name, Self.limits(monthly: 12), endpoint)
            }
        }
        #expect(answers.count == 2 && answers.allSatisfy { $0.contains("\"Allow\"") }, "\(answers)")
        let recorded = printed.standardOutput.split(separator: "\n").filter { $0.contains("INKRA_RECORDING") }
        #expect(recorded.count == 2, "\(printed.standardOutput)\(printed.standardError)")
        let user = RecordingRedaction(secret: .development).user("lr-premium")
        for line in recorded {
            #expect(line.contains(#""custom:monthly_quota":40"#), "no verified claims: \(line)")
            #expect(line.contains(user), "\(line)")
            #expect(!line.contains("lr-premium") && !line.contains(token), "\(line)")
        }
    }
}
