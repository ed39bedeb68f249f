import Foundation
import InkraAuth
import InkraTestSupport
import InkraTime
import SingleTable
import Testing

@testable import InkraFuzzTargets

@Suite("The fuzz targets' seed corpus and kept crashes keep every invariant")
struct SeedCorpusTests {
    static func inputs(_ target: FuzzTarget) -> [URL] {
        var folders = [ChildProcess.repositoryRoot.appendingPathComponent("Fuzz/corpus/\(target.rawValue)")]
        if target == .json || target == .event {
            folders.append(ChildProcess.repositoryRoot.appendingPathComponent("events"))
        }
        return folders.flatMap { folder in
            (FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
                .filter { !$0.hasDirectoryPath }
        }
    }

    @Test("Every seed runs through its target without breaking the invariant", arguments: FuzzTarget.allCases)
    func seeds(target: FuzzTarget) async throws {
        let files = Self.inputs(target)
        #expect(files.count >= 5, "the \(target.rawValue) corpus is missing")
        for file in files {
            do {
                try await target.run(Array(try Data(contentsOf: file)))
            } catch {
                Issue.record("\(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test("A refused write leaves the item as it was; a condition that holds writes")
    func expressionAtomicity() async throws {
        // The invariant is checked against the table after the write: these inputs exercise both paths.
        try await FuzzTarget.expression.run(Array("ADD #n :one\0#n < :limit".utf8))
        try await FuzzTarget.expression.run(Array("ADD #n :one\0#n > :limit".utf8))
        try await FuzzTarget.expression.run(Array("SET #h[7] = :zero, #h[7] = :one\0".utf8))
    }

    /// A token the development key signed, valid at the fuzzers' fixed instant.
    static func signedToken() throws -> String {
        let pem = try String(
            contentsOf: ChildProcess.repositoryRoot.appendingPathComponent("emulator/dev-keys/dev-private-key.pem"),
            encoding: .utf8)
        let signer = try TokenSigner(privateKeyPEM: pem, kid: "inkra-local-development-key")
        return try signer.sign(
            DevelopmentClaims(
                sub: "fuzz-ada", clientId: "inkra-local-client",
                issuer: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_InkraLocal",
                issuedAt: fuzzInstant.addingTimeInterval(-60), expiresAt: fuzzInstant.addingTimeInterval(3600)))
    }

    @Test("token: what the development key signed passes; garbage accepted, or a refusal repeating the token, fails")
    func tokenInvariantCanFail() async throws {
        let token = try Self.signedToken()
        try await FuzzTarget.token.run(Array(token.utf8))
        #expect(TokenGarbage.signedByDevelopmentKey(token))
        var tampered = Array(token.utf8)
        tampered[tampered.count / 2] =
            tampered[tampered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(!TokenGarbage.signedByDevelopmentKey(String(decoding: tampered, as: UTF8.self)))

        #expect(throws: FuzzFailure.self) { try TokenGarbage.check("eyJhbGciOiJub25lIn0.e30.", refusal: nil) }
        let echoing = AuthError(.malformed, "cannot read \(token)")
        #expect(throws: FuzzFailure.self) { try TokenGarbage.check(token, refusal: echoing) }
        try TokenGarbage.check(token, refusal: AuthError(.malformed, "not a JWT"))
        // Words of the message itself, found by the fuzzer, are no echo of a token.
        try TokenGarbage.check("oken has 1 parts, not", refusal: AuthError(.malformed, "token has 1 parts, not 3"))
        // Nor is a digit followed by NULs, which a C-string comparison stops reading at.
        try TokenGarbage.check(
            "3" + String(repeating: "\0", count: 40), refusal: AuthError(.malformed, "token has 1 parts, not 3"))
    }

    @Test("expression: a refusal under a condition that holds, or a table unlike the returned image, fails")
    func expressionInvariantCanFail() async throws {
        let original = ExpressionAtomicity.original
        let refused = TableError(.conditionalCheckFailed, "The conditional request failed")
        await #expect(throws: FuzzFailure.self) {
            try await ExpressionAtomicity.check(
                update: "ADD #n :one", condition: "#n < :limit", outcome: .failure(refused), after: [original])
        }
        try await ExpressionAtomicity.check(
            update: "ADD #n :one", condition: "#n > :limit", outcome: .failure(refused), after: [original])
        var changed = original
        changed["requestCount"] = .n(4)
        await #expect(throws: FuzzFailure.self) {
            try await ExpressionAtomicity.check(
                update: "ADD #n :one", condition: nil, outcome: .failure(refused), after: [changed])
        }
        await #expect(throws: FuzzFailure.self) {
            try await ExpressionAtomicity.check(
                update: "ADD #n :one", condition: nil, outcome: .success(WriteItemResponse(attributes: changed)),
                after: [original])
        }
        try await ExpressionAtomicity.check(
            update: "ADD #n :one", condition: nil, outcome: .success(WriteItemResponse(attributes: changed)),
            after: [changed])
    }
}
