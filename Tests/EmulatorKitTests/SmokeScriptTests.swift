import Foundation
import InkraTestSupport
import Testing

/// docs/after-deploy.md's smoke test, run against the local stack as it would run against `ApiUrl`:
/// a user of the pool, an id token from `scripts/id-token.py` (SRP, through the app client that
/// allows nothing else), and `scripts/smoke.sh`.
@Suite("After deploying: scripts/id-token.py and scripts/smoke.sh (spawned, under exec)")
struct SmokeScriptTests {
    /// Whether python3 has boto3 and pycognito (CI installs them from .ci/requirements.txt).
    static let hasPycognito = Task { await Python.imports("boto3", "pycognito") }

    /// The skip reason of the tests that need it.
    static let needsPycognito: Comment =
        "python3 with boto3 and pycognito is needed (pip install -r .ci/requirements.txt)"

    /// Creates a confirmed user in the local pool, gets its id token with the script, runs the
    /// smoke test with `smokeArguments`.
    static let session = #"""
        set -e
        python3 - <<'PY'
        import os, boto3
        idp = boto3.client("cognito-idp")
        idp.sign_up(ClientId=os.environ["INKRA_APP_CLIENT_ID"], Username="smoke@example.com",
                    Password="Correct-horse-9", UserAttributes=[{"Name": "email", "Value": "smoke@example.com"}])
        idp.admin_set_user_password(UserPoolId=os.environ["INKRA_USER_POOL_ID"], Username="smoke@example.com",
                                    Password="Correct-horse-9", Permanent=True)
        PY
        TOKEN=$(INKRA_PASSWORD=Correct-horse-9 python3 scripts/id-token.py --pool-id "$INKRA_USER_POOL_ID" \
            --client-id "$INKRA_APP_CLIENT_ID" --username smoke@example.com --endpoint-url "$INKRA_COGNITO_URL")
        export TOKEN
        echo "token parts: $(echo "$TOKEN" | tr '.' '\n' | wc -l)"
        scripts/smoke.sh "$INKRA_API_URL" "$@"
        """#

    static func run(_ arguments: [String]) async throws -> ProcessResult {
        try await runEmulator(
            ["exec", "--no-access-log", "--no-console", "--", "bash", "-c", session, "session"] + arguments)
    }

    @Test(
        "An SRP sign-in through the app client, then every step of the smoke test with --generate passes",
        .enabled(Self.needsPycognito) { await hasPycognito.value })
    func passes() async throws {
        let result = try await Self.run(["--generate"])
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        #expect(
            result.standardOutput == """
                token parts: 3
                smoke: no token -> 401 unauthorized
                smoke: GET /usage -> 200, used 0 of 5 this month (free)
                smoke: POST /questions -> 200, 1 question(s)
                smoke: the same request again -> 200, replayed
                smoke: GET /usage -> used 1: one unit for the one call
                smoke: passed

                """)
    }

    @Test(
        "A wrong password: id-token.py exits 1 naming the user and the pool's error, and prints no token",
        .enabled(Self.needsPycognito) { await hasPycognito.value })
    func wrongPassword() async throws {
        let result = try await runEmulator([
            "exec", "--no-access-log", "--no-console", "--", "sh", "-c",
            #"INKRA_PASSWORD=Wrong-horse-9 python3 scripts/id-token.py --pool-id "$INKRA_USER_POOL_ID" "#
                + #"--client-id "$INKRA_APP_CLIENT_ID" --username nobody@example.com --endpoint-url "$INKRA_COGNITO_URL""#,
        ])
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.contains("cannot sign in nobody@example.com: NotAuthorizedException"))
    }

    @Test("A token the API refuses: smoke.sh stops at GET /usage, naming the step and the status, exit 1")
    func refusedToken() async throws {
        let result = try await runEmulator([
            "exec", "--no-access-log", "--no-console", "--", "sh", "-c",
            #"TOKEN=not.a.token scripts/smoke.sh "$INKRA_API_URL""#,
        ])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("smoke: no token -> 401 unauthorized"))
        #expect(result.standardError.contains("smoke: FAILED: GET /usage answered 401"))
        #expect(!result.standardError.contains("not.a.token") && !result.standardOutput.contains("not.a.token"))
    }
}
