import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import NIOHTTP1
import Testing

/// Issue #26: the console's live list shows whether the authorizer ran or its answer came from
/// API Gateway's cache, which is keyed by the token (the identity source): a token seen before is
/// answered from the cache, any other token, the same user's included, runs the authorizer.
/// Follows the API Gateway API Reference's `Authorizer` (CreateAuthorizer,
/// docs.aws.amazon.com/apigateway/latest/api/API_CreateAuthorizer.html): `identitySource`, the
/// token's header for a `TOKEN` authorizer, is what the caching key is derived from, and
/// `authorizerResultTtlInSeconds` of 0 disables caching (default 300).
@Suite("serve's console: the authorizer's answer, cached or not")
struct ConsoleCacheTests {
    /// Each kept entry's authorizer step: `true` cached, `false` run, `nil` no authorizer.
    static func cached(_ feed: ConsoleFeed) -> [Bool?] {
        feed.entries.map { $0.exchange.authorizer?.cached }
    }

    @Test("The same token twice shows cached false then true; another token, even the same user's, is not cached")
    func sameTokenCached() async throws {
        try await ServeFixture.run(ConsoleTests.settings()) { served in
            let feed = try #require(served.server.console?.feed)
            let alice = try ServeFixture.token("alice")
            let aliceAgain = try ServeFixture.token("alice", tier: "premium")
            let carol = try ServeFixture.token("carol")
            #expect(alice != aliceAgain, "a second token of the same user")
            for token in [alice, alice, carol, aliceAgain, carol] {
                #expect(try await served.generate(token: token).status == 200)
            }
            #expect(Self.cached(feed) == [false, true, false, false, true])
            #expect(feed.entries.map(\.exchange.userID) == ["alice", "alice", "carol", "alice", "carol"])
            let list = try await served.send(.GET, try #require(served.endpoints.console), path: "api/requests").json
            #expect(
                list["requests"]?.array?.map { $0["authorizer"] }
                    == ["invoked", "cached", "invoked", "invoked", "cached"])
        }
    }

    @Test("With the cache's TTL at 0 (caching off) the same token is never shown as cached")
    func cacheOff() async throws {
        var settings = ServeFixture.settings(authorizerCacheTTL: 0)
        settings.ports[.console] = 0
        try await ServeFixture.run(settings) { served in
            let feed = try #require(served.server.console?.feed)
            let token = try ServeFixture.token("dana", tier: "premium")
            for _ in 0..<3 { #expect(try await served.generate(token: token).status == 200) }
            #expect(Self.cached(feed) == [false, false, false])
        }
    }

    @Test("Once a token's answer is cached, ten concurrent requests with it are all answered from the cache")
    func concurrentCached() async throws {
        try await ServeFixture.run(ConsoleTests.settings()) { served in
            let feed = try #require(served.server.console?.feed)
            let token = try ServeFixture.token("erin", tier: "premium")
            #expect(try await served.generate(token: token).status == 200)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 { group.addTask { try await served.generate(token: token).status } }
                for try await status in group { #expect(status == 200) }
            }
            let entries = feed.entries.sorted { $0.sequence < $1.sequence }
            #expect(entries.count == 11)
            #expect(entries.first?.exchange.authorizer?.cached == false)
            #expect(entries.dropFirst().allSatisfy { $0.exchange.authorizer?.cached == true })
        }
    }
}
