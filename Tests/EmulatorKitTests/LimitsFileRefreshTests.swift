import EmulatorKit
import Foundation
import InkraJSON
import InkraRuntime
import InkraTime
import Testing

/// The emulator's functions are built by the list that ships, so a limits file is read again as the
/// runtime reads its limits (`INKRA_LIMITS_MAX_AGE`): an owner's change reaches the next call a max
/// age later, though API Gateway still holds the authorizer's answer.
@Suite("A changed limits file reaches the emulator's calls a max age later")
struct LimitsFileRefreshTests {
    static let when = Timestamp(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    static func limits(monthly: Int) -> String { #"{"free":{"monthly":\#(monthly),"daily":20,"hourly":20}}"# }

    /// A stack on a limits file in `folder` holding a free monthly limit, read again each 60 s.
    static func stack(monthly: Int, in folder: URL) async throws -> (stack: EmulatorStack, file: URL) {
        let file = folder.appendingPathComponent("limits.json")
        try Data(limits(monthly: monthly).utf8).write(to: file)
        var options = Repository.options(now: when)
        options.limitsFile = file
        options.limitsMaxAge = 60
        return (try await EmulatorStack(options: options), file)
    }

    @Test("Raised: answered past the max age, not before; a file that does not read keeps the last good limits")
    func changeReachesCachedCaller() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (stack, file) = try await Self.stack(monthly: 2, in: folder)
        // The authorizer's answer is cached for 300 s: it names the tier, never the limit.
        let chain = stack.gateway.caching(in: AuthorizerCache(timeToLive: 300, now: { Self.when }))
        let token = try DevelopmentTokens.mint(
            with: Repository.developmentKey, claims: .init(sub: "owner-changed-limits"), at: Self.when)
        func call(at seconds: TimeInterval) async -> (status: Int?, limit: Int?) {
            let time = Self.when.addingTimeInterval(seconds)
            let result = await chain.invoke(
                .generateQuestions, event: SampleEvents.event(.restGenerate, token: token, at: time), at: time)
            guard case .success(let answer) = result.outcome else { return (nil, nil) }
            let body = try? JSONParser.parse(answer["body"]?.string ?? "")
            return (answer["statusCode"]?.int, body?["usage"]?["limit"]?.int ?? body?["limit"]?.int)
        }
        #expect(await call(at: 0).status == 200)
        #expect(await call(at: 1).status == 200)
        #expect(await call(at: 2) == (429, 2))
        try Data(Self.limits(monthly: 4).utf8).write(to: file)
        #expect(await call(at: 30) == (429, 2), "within the max age the limits read last stay")
        #expect(await call(at: 61) == (200, 4))
        #expect(await call(at: 62) == (200, 4))
        #expect(await call(at: 63) == (429, 4))
        try Data("{not json".utf8).write(to: file)
        #expect(await call(at: 125) == (429, 4), "a file that does not read keeps the last good limits")
        try Data(Self.limits(monthly: 3).utf8).write(to: file)
        #expect(await call(at: 150) == (429, 4), "the next read waits a max age after the failed one")
        #expect(await call(at: 190) == (429, 3))
    }

    @Test("A file changed between start-up and the first call is read by that call")
    func changeBeforeFirstCall() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (stack, file) = try await Self.stack(monthly: 3, in: folder)
        try Data(Self.limits(monthly: 1).utf8).write(to: file)
        let token = try DevelopmentTokens.mint(
            with: Repository.developmentKey, claims: .init(sub: "changed-before-first"), at: Self.when)
        var statuses: [Int?] = []
        for _ in 0..<2 {
            let event = SampleEvents.event(.restGenerate, token: token, at: Self.when)
            statuses.append(await Replayer(stack: stack).replay(event: event, function: .generateQuestions).statusCode)
        }
        #expect(statuses == [200, 429])
    }
}

@Suite("The emulator runs the shipped list of functions")
struct SharedFunctionListTests {
    @Test("Its function names are the list's, in the list's order")
    func sameNames() {
        #expect(FunctionName.allCases.map(\.rawValue) == FunctionList.standard.names)
    }
}
