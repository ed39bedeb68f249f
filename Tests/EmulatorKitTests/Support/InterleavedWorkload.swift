import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime

/// A generated replay workload whose outcome depends on order: a dozen users (three premium) whose
/// calls interleave at random (seeded), enough `generateQuestions` calls that free users run into
/// their limits, `Idempotency-Key`s shared across users, account deletions in the middle, authorizer
/// events, and two bad events. Every `generateQuestions` event expects 200, so the refused ones
/// mismatch and the replay exits 1.
struct InterleavedWorkload {
    var events: [(name: String, function: FunctionName, event: JSONValue)] = []
    /// Lines that are not events, by their place among the events.
    var broken: [(name: String, bytes: String)] = [
        ("000100-broken.json", "{ not json"), ("000200-unknown.json", #"{"x-inkra-function": "sendEmail"}"#),
    ]

    /// The `Idempotency-Key`s the users share.
    static let idempotencyKeys = (0..<4).map { "shared-key-\($0)" }

    init(count: Int = 400, users: Int = 12, seed: UInt64 = 25) throws {
        var random = SplitMix(state: seed)
        let start = Timestamp(timeIntervalSince1970: 1_795_000_000)
        var tokens: [String] = []
        for user in 0..<users {
            tokens.append(
                try DevelopmentTokens.mint(
                    with: Repository.developmentKey,
                    claims: .init(
                        sub: "user-\(user)", email: "user\(user)@example.com", tier: user < 3 ? "premium" : "free",
                        expiresIn: 86_400),
                    at: start))
        }
        let kinds: [SampleEvents.Kind] = [
            .restGenerate, .httpGenerate, .restGenerate, .restUsage, .httpUsage, .restGenerate, .tokenAuthorizer,
        ]
        for index in 0..<count {
            let user = Int(random.next() % UInt64(users))
            let time = start.addingTimeInterval(Double(index) * 30)
            let name = String(format: "%06d", index)
            let requestID = "req-\(name)"
            if index % 97 == 50 {
                var event = SampleEvents.event(.restUsage, token: tokens[user], at: time, requestID: requestID)
                for (field, value) in [("httpMethod", "DELETE"), ("path", "/account"), ("resource", "/account")] {
                    event.set(.string(value), at: [field])
                }
                event.set("/account", at: ["requestContext", "resourcePath"])
                event.set("DELETE", at: ["requestContext", "httpMethod"])
                event.set("deleteAccount", at: ["x-inkra-function"])
                events.append((name, .deleteAccount, event))
                continue
            }
            let kind = kinds[Int(random.next() % UInt64(kinds.count))]
            var event = SampleEvents.event(kind, token: tokens[user], at: time, requestID: requestID)
            if kind.function == .authorizer {
                event.set(.string(CivilTime.iso8601(time)), at: ["x-inkra-recorded-at"])
            }
            if kind == .restGenerate, index % 5 == 0 {
                let key = Self.idempotencyKeys[Int(random.next() % 4)]
                event.set(.string(key), at: ["headers", "Idempotency-Key"])
                event.set([.string(key)], at: ["multiValueHeaders", "Idempotency-Key"])
            }
            event.set(.string(kind.function.rawValue), at: ["x-inkra-function"])
            events.append((name, kind.function, event))
        }
    }

    /// What each event expects, if anything: 200 for `generateQuestions`.
    static func expectation(for function: FunctionName) -> JSONValue? {
        function == .generateQuestions ? ["statusCode": 200] : nil
    }

    /// Writes the workload as a folder of event files with their expectations.
    func writeFolder(_ folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, function, event) in events {
            try Data(event.jsonBytes).write(to: folder.appendingPathComponent("\(name).json"))
            if let expected = Self.expectation(for: function) {
                try Data(expected.jsonBytes).write(to: folder.appendingPathComponent("\(name).expected.json"))
            }
        }
        for (name, bytes) in broken { try Data(bytes.utf8).write(to: folder.appendingPathComponent(name)) }
    }

    /// Writes the workload as one JSON-lines file, expectations inline under `x-inkra-expected`;
    /// the broken events become lines 101 and 202 (after the events named before them).
    func writeLines(_ file: URL) throws {
        var lines: [String] = []
        for (name, function, event) in events {
            for broken in broken where broken.name < name + ".json" && !lines.contains(broken.bytes) {
                lines.append(broken.bytes)
            }
            var line = event
            if let expected = Self.expectation(for: function) { line.set(expected, at: ["x-inkra-expected"]) }
            lines.append(line.jsonString)
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
    }
}

/// A small seeded generator, so the workload is the same on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49EB_133D_11EB
        return value ^ (value >> 31)
    }
}
