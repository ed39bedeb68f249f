import EmulatorKit
import Foundation
import Testing

@testable import LocalUserPool

/// A journal that cannot write, as a full disk.
struct BrokenJournal: UserPoolJournal {
    struct Full: Error {}
    func record(_ change: UserPoolChange) throws { throw Full() }
}

/// The pool's changes in `--state`'s write-ahead journal, read back as `serve` reads them on start.
@Suite("The local user pool's journal")
struct PoolJournalTests {
    @Test("Every change is in the journal when it is answered: a restart without a save finds the same pool")
    func restartFindsEveryChange() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pool-journal-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = StateFile(url: folder.appendingPathComponent("state.json"), tableName: "inkra-usage")
        let fixture = PoolFixture(journal: try state.openJournal())
        let pool = fixture.pool

        _ = try pool.signUp(
            clientID: PoolFixture.appClient, username: "pending@example.com", password: PoolFixture.password,
            attributes: [])
        try fixture.confirmedUser("kept@example.com")
        try pool.adminAddUserToGroup(username: "kept@example.com", group: "premium_tier")
        let tokens = try fixture.signIn("kept@example.com")
        _ = try fixture.signIn("kept@example.com")
        try fixture.confirmedUser("gone@example.com")
        let revoked = try fixture.signIn("gone@example.com")
        try pool.adminDeleteUser(username: "gone@example.com")
        _ = try pool.forgotPassword(clientID: PoolFixture.appClient, username: "kept@example.com")

        // No save: what a kill -9 leaves.
        let loaded = try #require(try state.loadUserPool())
        #expect(loaded == pool.snapshot)
        #expect(loaded.users.map(\.email) == ["pending@example.com", "kept@example.com"])
        #expect(loaded.users.first?.status == .unconfirmed)
        #expect(loaded.users.last?.groups == ["premium_tier"])
        #expect(loaded.users.last?.pendingCode?.purpose == .resetPassword)
        #expect(loaded.accessTokens[UserPool.sha256Hex(tokens.accessToken)] != nil)
        #expect(loaded.revokedTokens.contains(UserPool.sha256Hex(revoked.accessToken)))
        // The table's replay passes over the pool's lines.
        #expect(try state.load().isEmpty)

        let restarted = PoolFixture(snapshot: loaded)
        #expect(try restarted.signIn("kept@example.com").idToken.isEmpty == false)
        #expect(throws: CognitoError.self) { try restarted.pool.adminGetUser(username: "gone@example.com") }
    }

    @Test("A change the journal cannot take is undone and answered InternalErrorException")
    func brokenJournal() throws {
        let pool = PoolFixture(journal: BrokenJournal()).pool
        let error = #expect(throws: CognitoError.self) {
            try pool.signUp(
                clientID: PoolFixture.appClient, username: "lost@example.com", password: PoolFixture.password,
                attributes: [])
        }
        #expect(error?.type == "InternalErrorException")
        #expect(error?.status == 500)
        #expect(pool.snapshot.users.isEmpty)
    }
}
