import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime

/// `generateQuestions` events for `run-runtime`, as one JSON-lines file: users whose calls
/// interleave (seeded), most of them free so that they run into their limits, and a user retrying
/// with an `Idempotency-Key` of its own now and then — an outcome that depends on each user's
/// events running in order on the runtime that holds the user's usage.
struct RuntimeWorkload {
    /// The file's lines.
    var lines: [String] = []

    static let start = Timestamp(timeIntervalSince1970: 1_795_000_000)

    static let developmentKey: DevelopmentKey = {
        do {
            return try DevelopmentKey(
                directory: ChildProcess.repositoryRoot.appendingPathComponent("emulator/dev-keys"))
        } catch {
            fatalError("\(error)")
        }
    }()

    /// A token for `user-<user>`, every fourth user premium.
    static func token(_ user: Int) throws -> String {
        try DevelopmentTokens.mint(
            with: developmentKey,
            claims: .init(
                sub: "user-\(user)", email: "user\(user)@example.com", tier: user % 4 == 0 ? "premium" : "free",
                expiresIn: 86_400),
            at: start)
    }

    /// One event of `user` at position `index`, expecting 200.
    static func line(_ index: Int, user: Int, token: String, idempotencyKey: String? = nil) -> String {
        let time = start.addingTimeInterval(Double(index) * 20)
        var event = SampleEvents.event(
            index % 2 == 0 ? .restGenerate : .httpGenerate, token: token, at: time,
            requestID: String(format: "req-%06d", index))
        if let idempotencyKey { event.set(.string(idempotencyKey), at: ["headers", "Idempotency-Key"]) }
        event.set("generateQuestions", at: ["x-inkra-function"])
        event.set(["statusCode": 200], at: ["x-inkra-expected"])
        return event.jsonString
    }

    /// `count` events of `users` users, interleaved at random (seeded); every seventh a retry
    /// under a key of the user's own, sent again until the next seventieth event.
    init(count: Int = 600, users: Int = 24, seed: UInt64 = 25) throws {
        let tokens = try (0..<users).map(Self.token)
        var state = seed
        for index in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let user = Int((state >> 33) % UInt64(users))
            let key = index % 7 == 0 ? "retry-\(user)-\(index / 70)" : nil
            lines.append(Self.line(index, user: user, token: tokens[user], idempotencyKey: key))
        }
    }

    /// Two users first seen apart — user 0's 150 events and user 1's 106 fill the first chunk of
    /// 256, so each gets a runtime of its own under `--jobs 2` — then user 1 sends the
    /// `Idempotency-Key` user 0 sent first, and four more events follow.
    static func tiedLater() throws -> RuntimeWorkload {
        let tokens = [try token(1), try token(2)]
        var workload = RuntimeWorkload(lines: [])
        for index in 0..<256 {
            let user = index % 5 < 3 && index < 250 ? 0 : 1
            workload.lines.append(
                line(index, user: user, token: tokens[user], idempotencyKey: index == 0 ? "shared" : nil))
        }
        workload.lines.append(line(256, user: 1, token: tokens[1], idempotencyKey: "shared"))
        for index in 257..<261 { workload.lines.append(line(index, user: index % 2, token: tokens[index % 2])) }
        return workload
    }

    private init(lines: [String]) { self.lines = lines }

    /// Writes the lines to `file`.
    func write(to file: URL) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
    }
}
