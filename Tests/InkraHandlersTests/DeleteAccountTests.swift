import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTesting
import InkraTime
import InkraUsage
import SingleTable
import Testing

@Suite("deleteAccount (DELETE /account)")
struct DeleteAccountTests {
    static let now = ManualClock("2026-03-10T10:00:00Z")

    /// ada has used 4 of her month, 2 of the day, 1 of the hour, one call with an idempotency key,
    /// and was refused once; bob has usage of his own.
    static func seededStore() async throws -> InMemoryUsageStore {
        let store = InMemoryUsageStore(
            seeded: ["ada": (month: 3, day: 2, hour: 1), "bob": (month: 2, day: 1, hour: 1)], at: now.now)
        let generate = GenerateQuestions(store: store, generator: TemplateQuestionGenerator())
        let keyed = ProxyEvent.rest(
            caller: Caller("ada"), body: #"{"topic":"a lighthouse"}"#, headers: ["Idempotency-Key": "k-1"])
        #expect(try await ProxyResult(generate.handle(keyed, context: Self.now.context)).statusCode == 200)
        let refused = try await ProxyResult(
            generate.handle(
                ProxyEvent.rest(caller: Caller("ada"), body: #"{"topic":"again"}"#), context: Self.now.context))
        #expect(refused.code == "rate_limited")
        return store
    }

    static func items(of user: String, in store: InMemoryUsageStore) -> [Item] {
        store.items.filter { $0["PK"] == .s(userPartition(user)) }
    }

    /// What a closed account keeps: its month's tombstone, which holds nothing but when it ends.
    static func isTombstone(_ items: [Item]) -> Bool {
        items.count == 1 && Set(items[0].keys) == ["PK", "SK", "closedUntil", "expiresAt"]
            && items[0]["SK"] == .s("USAGE#2026-03")
            && items[0]["closedUntil"] == .n(Int(Self.now.now.timeIntervalSince1970) + 25 * 3600)
    }

    @Test("204 with an empty body, nothing left under the caller but a tombstone, another user untouched; again 204")
    func deletes() async throws {
        let store = try await Self.seededStore()
        #expect(Self.items(of: "ada", in: store).count == 5)  // month, day (refusal mark), hour, idempotency, refused
        let bob = Self.items(of: "bob", in: store)
        let delete = DeleteAccount(store: store)
        for event in [
            ProxyEvent.rest("DELETE", "/account", caller: Caller("ada")),
            ProxyEvent.http("DELETE", "/account", caller: Caller("ada")),
        ] {
            let result = try await ProxyResult(delete.handle(event, context: Self.now.context))
            #expect(result.statusCode == 204)
            #expect(result.text.isEmpty)
            #expect(result.body == .null)
            #expect(Self.isTombstone(Self.items(of: "ada", in: store)), "\(Self.items(of: "ada", in: store))")
            #expect(Self.items(of: "bob", in: store) == bob)
        }
        #expect(try await store.refusedUsers(on: "2026-03-10").isEmpty)
        // The account does not start again from zero: its token gets nothing more.
        let usage = try await store.usage(for: "ada", at: Self.now.now, limits: .free)
        #expect(usage.accountClosed)
    }

    @Test("Without a caller 401 unauthorized; a failing store 503 unavailable with Retry-After")
    func failures() async throws {
        let store = try await Self.seededStore()
        let anonymous = try await ProxyResult(
            DeleteAccount(store: store).handle(ProxyEvent.rest("DELETE", "/account"), context: Self.now.context))
        #expect(anonymous.statusCode == 401)
        #expect(anonymous.code == "unauthorized")
        #expect(Self.items(of: "ada", in: store).count == 5)

        let broken = DeleteAccount(store: TableUsageStore(table: BrokenTable(), tableName: "inkra-usage"))
        let failed = try await ProxyResult(
            broken.handle(ProxyEvent.rest("DELETE", "/account", caller: Caller("ada")), context: Self.now.context))
        #expect(failed.statusCode == 503)
        #expect(failed.code == "unavailable")
        #expect(failed.retryAfter == 2)
    }

    @Test("With a user directory: the usage first, then the account; an account already gone is still 204")
    func deletesTheAccount() async throws {
        let store = try await Self.seededStore()
        let directory = RecordingDirectory(users: ["ada", "bob"])
        let delete = DeleteAccount(store: store, users: directory)
        for _ in 0..<2 {
            let result = try await ProxyResult(
                delete.handle(ProxyEvent.rest("DELETE", "/account", caller: Caller("ada")), context: Self.now.context))
            #expect(result.statusCode == 204)
            #expect(Self.isTombstone(Self.items(of: "ada", in: store)))
        }
        #expect(await directory.users == ["bob"])
        #expect(await directory.calls == ["ada", "ada"])
    }

    @Test("A failing directory: 503 unavailable with Retry-After, the usage erased; a retry deletes the account")
    func directoryFailure() async throws {
        let store = try await Self.seededStore()
        let directory = RecordingDirectory(users: ["ada"], failures: 1)
        let delete = DeleteAccount(store: store, users: directory)
        let event = ProxyEvent.rest("DELETE", "/account", caller: Caller("ada"))
        let failed = try await ProxyResult(delete.handle(event, context: Self.now.context))
        #expect(failed.statusCode == 503)
        #expect(failed.code == "unavailable")
        #expect(failed.error == "User directory unavailable")
        #expect(failed.retryAfter == 2)
        #expect(Self.isTombstone(Self.items(of: "ada", in: store)))
        #expect(await directory.users == ["ada"])
        #expect(try await ProxyResult(delete.handle(event, context: Self.now.context)).statusCode == 204)
        #expect(await directory.users.isEmpty)
    }

    @Test("A failing store: 503, and the account is left for the retry (the directory is not called)")
    func storeFailureKeepsTheAccount() async throws {
        let directory = RecordingDirectory(users: ["ada"])
        let broken = DeleteAccount(
            store: TableUsageStore(table: BrokenTable(), tableName: "inkra-usage"), users: directory)
        let failed = try await ProxyResult(
            broken.handle(ProxyEvent.rest("DELETE", "/account", caller: Caller("ada")), context: Self.now.context))
        #expect(failed.statusCode == 503)
        #expect(await directory.calls.isEmpty)
        #expect(await directory.users == ["ada"])
    }
}

/// A user directory in memory that records the deletions asked of it and fails the first
/// `failures` of them.
actor RecordingDirectory: UserDirectory {
    private(set) var users: Set<String>
    private(set) var calls: [String] = []
    private var failures: Int

    init(users: Set<String>, failures: Int = 0) {
        self.users = users
        self.failures = failures
    }

    func deleteUser(_ userID: String) async throws -> Bool {
        calls.append(userID)
        if failures > 0 {
            failures -= 1
            throw DirectoryDown()
        }
        return users.remove(userID) != nil
    }

    struct DirectoryDown: Error {}
}
