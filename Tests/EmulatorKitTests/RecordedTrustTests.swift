import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

/// A session recorded by a real `serve --record` (here `exec --record`, the same stack around one
/// script) with users of the local pool and a development token, replayed by the built binary.
@Suite("replay: a recording replays as recorded, trusting what serve trusted (spawned)")
struct RecordedTrustTests {
    /// Signs a pool user up and in (boto3), calls the API with the pool's id token (twice, so the
    /// second is answered from the authorizer cache) and with a development token.
    static let session = """
        import json, os, sys, urllib.request, urllib.error
        import boto3
        idp = boto3.client("cognito-idp")
        pool, client = os.environ["INKRA_USER_POOL_ID"], os.environ["INKRA_CLI_CLIENT_ID"]
        idp.sign_up(ClientId=client, Username="grace@example.com", Password="Correct-horse-9",
                    UserAttributes=[{"Name": "email", "Value": "grace@example.com"}])
        idp.admin_set_user_password(UserPoolId=pool, Username="grace@example.com", Password="Correct-horse-9",
                                    Permanent=True)
        pool_token = idp.initiate_auth(ClientId=client, AuthFlow="USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": "grace@example.com", "PASSWORD": "Correct-horse-9"}
        )["AuthenticationResult"]["IdToken"]
        def call(token, method, path, body=None):
            request = urllib.request.Request(os.environ["INKRA_API_URL"] + path, method=method,
                data=None if body is None else json.dumps(body).encode(),
                headers={"Authorization": "Bearer " + token})
            try:
                with urllib.request.urlopen(request) as answer:
                    return answer.status
            except urllib.error.HTTPError as error:
                return error.code
        statuses = [
            call(pool_token, "POST", "/questions", {"topic": "my first job"}),
            call(pool_token, "GET", "/usage"),
            call(os.environ["DEV_TOKEN"], "POST", "/questions", {"topic": "a summer by the sea"}),
            call(os.environ["DEV_TOKEN"], "GET", "/usage"),
            call("not.a.token", "GET", "/usage"),
        ]
        print(" ".join(map(str, statuses)))
        """

    @Test(
        "A session of pool users and development tokens recorded by serve replays clean; the manifest holds no secret",
        .enabled("python3 with boto3 is needed (pip install boto3)") { await ExecCommandTests.hasBoto3.value })
    func mixedSession() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("session.py")
        try Data(Self.session.utf8).write(to: script)
        let recording = folder.appendingPathComponent("rec")
        let developmentToken = try DevelopmentTokens.mint(
            with: Repository.developmentKey, claims: .init(sub: "dev-bob", tier: "premium"), at: Timestamp.now)
        let session = try await ChildProcess.run(
            Repository.emulatorBinary,
            [
                "exec", "--record", recording.path, "--no-console", "--no-access-log", "--",
                "/usr/bin/env", "DEV_TOKEN=\(developmentToken)", "python3", script.path,
            ],
            directory: Repository.root)
        try #require(session.status == 0, "\(session.standardError)")
        #expect(session.standardOutput == "200 200 200 200 401\n")

        // What serve trusted: the development issuer and the pool's, with public keys only.
        let manifestText = try String(
            contentsOf: recording.appendingPathComponent(RecordingManifest.fileName), encoding: .utf8)
        let manifest = try JSONParser.parse(manifestText)
        let issuers = (manifest["issuers"]?.array ?? []).compactMap { $0["issuer"]?.string }
        #expect(issuers.contains(DevelopmentKey.issuer))
        #expect(issuers.contains { $0.hasPrefix("http://127.0.0.1:") && $0.hasSuffix("/us-east-1_InkraLocal") })
        #expect(manifest["authorizerCacheTtl"]?.double == 300)
        for key in (manifest["issuers"]?.array ?? []).flatMap({ $0["jwks"]?["keys"]?.array ?? [] }) {
            #expect(key["n"] != nil && key["d"] == nil && key["p"] == nil)
        }
        #expect(!manifestText.contains("eyJ"), "no token in the manifest")
        #expect(!manifestText.contains("grace@example.com"))

        // Every answer as recorded, pool tokens and the development token in one run.
        let replay = try await runEmulator(["replay", recording.path, "--jobs", "1"])
        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
        #expect(replay.standardOutput.contains("5 events: 5 passed, 0 failed"), "\(replay.standardOutput)")
        #expect(replay.standardOutput.contains("200 (authorizer cached)"))
        #expect(replay.standardError.contains("trusting what the recording trusted (.inkra-recording.json)"))

        // Without the recording's trust, the pool's tokens are refused as before: the test can fail.
        let untrusted = try await runEmulator(["replay", recording.path, "--no-recorded-trust", "--jobs", "1"])
        #expect(untrusted.status == 1)
        #expect(untrusted.standardOutput.contains("401 (wrongIssuer)"), "\(untrusted.standardOutput)")
        #expect(untrusted.standardOutput.contains("5 events: 3 passed, 2 failed"), "\(untrusted.standardOutput)")
    }
}
