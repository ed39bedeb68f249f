import ArgumentParser
import EmulatorKit
import Foundation

/// How a local replay takes the recording: the table it starts from, the issuers it trusts, how
/// long the authorizer's answers are cached (`replay check`, `replay report`, `replay bill`).
struct RecordingOptions: ParsableArguments {
    @Option(
        name: .customLong("state-from-scan"),
        help: "Seed the table first from `aws dynamodb scan --output json` output (one or several pages).")
    var stateFromScan: String?

    @Option(
        name: .customLong("authorizer-cache-ttl"),
        help: """
            Seconds of recorded time an authorizer answer is cached, per Authorization header, as API Gateway \
            caches it (default: the recording's, else template.yaml's 300); 0 turns the cache off.
            """)
    var authorizerCacheTTL: Double?

    @Flag(
        inversion: .prefixedNo,
        help: "Trust the issuers and keys a recording's .inkra-recording.json names (serve --record writes it).")
    var recordedTrust = true

    func validate() throws {
        if let authorizerCacheTTL, !(0...3600).contains(authorizerCacheTTL) {
            throw ValidationError("--authorizer-cache-ttl must be from 0 to 3600 seconds, as API Gateway allows")
        }
    }

    /// Starts the functions' logs and the stack of `common`'s options, seeds it from
    /// `--state-from-scan`, trusts what the recordings' manifests name and reads their tokens,
    /// saying each on standard error.
    /// - Returns: the stack, the authorizer cache's time to live (the flag's, else the
    ///   recording's, else template.yaml's) and the signer of `import --with-tokens`' claims, if any.
    func stack(
        _ common: CommonOptions, for targets: [URL]
    ) async throws -> (stack: EmulatorStack, cacheTTL: TimeInterval, tokens: RecordedTokenSigner?) {
        LogSetup.bootstrap(level: common.logLevel.value)
        let stack = try await EmulatorStack(options: try common.emulatorOptions())
        if let stateFromScan {
            let scan = try TableScan(contentsOf: URL(fileURLWithPath: stateFromScan))
            try await scan.seed(stack.table, tableName: stack.options.tableName)
            Output.err("seeded \(scan.wireItems.count) items from \(stateFromScan)")
        }
        let manifest = try manifest(for: targets)
        if let manifest {
            try manifest.trust(in: stack)
            let issuers = manifest.issuers.map(\.configuration.issuer).joined(separator: ", ")
            Output.err("trusting what the recording trusted (\(RecordingManifest.fileName)): \(issuers)")
        }
        let cacheTTL = authorizerCacheTTL ?? manifest?.authorizerCacheTTL ?? AuthorizerCache.templateTimeToLive
        return (stack, cacheTTL, try recordedTokens(for: targets, in: stack))
    }

    /// The recordings' manifest, unless `--no-recorded-trust`.
    func manifest(for targets: [URL]) throws -> RecordingManifest? {
        recordedTrust ? try RecordingManifest.read(for: targets) : nil
    }

    /// `import --with-tokens`' .inkra-tokens.json beside the folders replayed: a signer of its claims with
    /// the development key, saying so on standard error; `nil` when there is none.
    /// - Throws: ``EmulatorError`` when the file is malformed, or when the stack does not trust the
    ///   development key (`--issuer`, `--user-pool-id` or `--jwks` name another).
    private func recordedTokens(for targets: [URL], in stack: EmulatorStack) throws -> RecordedTokenSigner? {
        guard let tokens = try RecordedTokens.read(for: targets) else { return nil }
        guard stack.options.trustsDevelopmentKey, let key = stack.options.developmentKey else {
            throw EmulatorError(
                "\(RecordedTokens.fileName): replay signs its claims with the development key, which this run does "
                    + "not trust (--issuer, --user-pool-id or --jwks name another); drop them to replay these events")
        }
        Output.err(
            "signing tokens from \(RecordedTokens.fileName): \(tokens.count) authorizer recordings of "
                + "\(tokens.users.count) users")
        return RecordedTokenSigner(tokens: tokens, key: key, configuration: try stack.options.cognitoConfiguration())
    }
}
