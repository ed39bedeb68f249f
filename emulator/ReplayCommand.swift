import ArgumentParser
import EmulatorKit
import Foundation
import InkraAuth
import InkraJSON

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay recorded API Gateway events through the functions, as API Gateway would.",
        discussion: """
            Files and folders are replayed in name order (default: events/). The function comes from the \
            folder (events/<function>/…) or an "x-inkra-function" field; events with an Authorization header \
            and no authorizer section run through the authorizer first. <name>.expected.json beside an event \
            holds its expected result. Exit status 1 when any event fails or mismatches.

            A JSON-lines file (*.jsonl, *.ndjson) holds an event a line, replayed in line order: each line an \
            event object with "x-inkra-function", and its expected result, if any, inline under \
            "x-inkra-expected" (what <name>.expected.json would hold). Events are read as they run, so a file \
            of a million events replays in bounded memory; a bad line is reported as <file>:<line>.

            --jobs N runs events of different users side by side on N workers (default: every core); events \
            of one user, or sharing an Idempotency-Key, still run in input order, and the output, the state \
            file and the exit status are those of --jobs 1, which runs every event in turn.

            Examples, from the repository root:
              swift run inkra-emulator replay events
              swift run inkra-emulator replay events/generateQuestions --json
              swift run inkra-emulator replay day.jsonl --jobs 2 --state day-state.json

            API Gateway's authorizer cache answers as the deployed API answered: an Authorization header \
            seen within --authorizer-cache-ttl seconds (recorded time) of an earlier answer for it is answered \
            from the cache, a token that expired meanwhile included, and its line says "(authorizer cached)" \
            ("authorizer": "cached" with --json). The default is the recording's (below), else template.yaml's \
            300; 0 runs the authorizer for every event.
              swift run inkra-emulator replay recorded/ --authorizer-cache-ttl 0

            A folder recorded by serve --record holds .inkra-recording.json: the issuers serve trusted (the \
            local user pool's http://HOST:PORT/us-east-1_InkraLocal, the development tokens') and their public \
            keys, and its cache time to live. replay trusts them too, besides what its own flags say, so a \
            session of pool users and development tokens replays as recorded; --no-recorded-trust ignores it.
              swift run inkra-emulator replay rec
              swift run inkra-emulator replay rec --no-recorded-trust

            A folder written by import --with-tokens holds .inkra-tokens.json: the claims the authorizer verified, \
            per user. replay signs them with the development key into each imported event's Authorization header \
            (the user's latest authorizer recording at or before the event that let the user through) instead of its injected context, so \
            the events run through the authorizer and the cache; their lines say "(token signed by replay)".
              swift run inkra-emulator replay recorded/authorizer recorded/checkUsage

            What if: --report replays recorded traffic under --limits and reports, against each event's \
            recorded outcome, the calls admitted before and refused now (by window) and refused before and \
            admitted now, by tier, with the users affected and a few request ids; it exits 0 however many \
            outcomes change.
              swift run inkra-emulator replay recorded/ --limits new-limits.json --report
              swift run inkra-emulator replay recorded/ --limits new-limits.json --report --json

            --algorithm decides the same calls as another way of counting would have, at their recorded \
            instants and under the same limits: calendar (the default: UTC clock hours, days and months, as the \
            functions count), sliding-window (the calls admitted in the hour, 24 hours and 30 days before each \
            call) or token-bucket (per window a bucket of limit tokens refilled at limit / window length, 30 days \
            for the month). Two calls at 10:59 and two at 11:00 under 2 an hour: calendar admits 4, the others 2.
              swift run inkra-emulator replay recorded/ --report --algorithm sliding-window
              swift run inkra-emulator replay recorded/ --limits new-limits.json --report --algorithm token-bucket --json

            \(ReplayCommand.costDiscussion)

            Against a deployed stack: --endpoint URL sends each event, in turn, as the HTTP request it \
            describes (method, path after the stage in URL, query, headers, body) and checks the answer \
            against its expectation, with the same output. A recorded Authorization header is never sent: \
            an event that carried one goes with the test user's id token (--token, --token-file, or --user \
            signed in through the pool with USER_SRP_AUTH, the password in $INKRA_PASSWORD or --password-env); \
            one without goes without. Events that cannot be checked as one test user (authorizer events, \
            another user's events, a recorded token expected to be refused) are listed as not checkable \
            and fail nothing. After --storm-limit (default 5) answers of 5xx in a row, or no answer, the \
            run stops with exit status 3.
              INKRA_PASSWORD=… swift run inkra-emulator replay scripts/endpoint-events/rest --endpoint "$API_URL" \\
                  --user tester@example.com --user-pool-id us-east-1_AbCdEf123 --client-id 1h2j3k4l5m6n7o8p9q
              swift run inkra-emulator replay scripts/endpoint-events/rest --endpoint "$API_URL" --token-file token.txt --json
              swift run inkra-emulator replay scripts/endpoint-events/rest --endpoint http://127.0.0.1:3000 --token "$TOKEN" \\
                  --storm-limit 3
            """
    )

    @Argument(help: "Event files and folders (default: events).")
    var paths: [String] = []

    @Flag(help: "Write each event's expectation from its result instead of comparing.")
    var update = false

    @Flag(help: "Print one JSON object per event instead of text (with --report: the report as one object).")
    var json = false

    @Flag(help: "Report what --limits would change against the recorded outcomes, instead of checking each event.")
    var report = false

    @Option(
        help: ArgumentHelp(
            "With --report: how the windows count the calls: calendar, sliding-window or token-bucket.",
            valueName: "algorithm"))
    var algorithm: WindowAlgorithm = .calendar

    @Option(
        name: .customLong("recorded-limits"),
        help: "With --report: the limits file the traffic was recorded under (default: the default limits).")
    var recordedLimits: String?

    @Option(
        name: .customLong("state-from-scan"),
        help: "Seed the table first from `aws dynamodb scan --output json` output (one or several pages).")
    var stateFromScan: String?

    @Option(help: "How many events run at once (default: the cores); 1 runs them in turn.")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @OptionGroup(title: "Against a deployed stack") var remote: EndpointOptions

    @Option(
        name: .customLong("authorizer-cache-ttl"),
        help: """
            Seconds of recorded time an authorizer answer is cached, per Authorization header, as API Gateway \
            caches it (default: the recording's, else template.yaml's 300); 0 turns the cache off.
            """)
    var authorizerCacheTTL: Double?

    @Flag(
        name: .customLong("no-recorded-trust"),
        help: "Do not trust the issuers and keys a recording's .inkra-recording.json names (serve --record writes it).")
    var noRecordedTrust = false

    // The bill (`--report --cost`): ReplayCommand+Cost.swift.
    @Flag(help: "With --report: price the replayed traffic with AWS's on-demand prices instead (a bill).")
    var cost = false

    @Option(help: "With --cost: the prices file (default: pricing/us-east-1.json).", completion: .file())
    var prices: String?

    @Option(
        name: .customLong("lambda-ms"),
        help: "With --cost: bill every Lambda invocation this many milliseconds instead of its measured duration.")
    var lambdaMilliseconds: Int?

    @Option(help: "With --cost: the functions' architecture, x86_64 or arm64 (default: template.yaml's x86_64).")
    var architecture: LambdaArchitecture?

    @Option(
        name: .customLong("model-price"),
        help: ArgumentHelp(
            "With --cost: the model's price, added to the bill: US dollars a call (each generateQuestions answered "
                + "200), or USD/1k for dollars per 1,000 tokens (see --model-tokens).",
            valueName: "usd"))
    var modelPrice: String?

    @Option(
        name: .customLong("model-tokens"),
        help: "With --model-price USD/1k: tokens one call uses, prompt and answer (default: an estimate, 600).")
    var modelTokens: Int?

    @Option(
        help: ArgumentHelp(
            "With --cost: the operator's month at these monthly active users, comma-separated (1000,10000,100000): "
                + "the traffic at the recording's pace, Cognito, the model and template.yaml's fixed lines.",
            valueName: "counts"))
    var users: String?

    @Option(help: "With --users: the stack's template (default: template.yaml).", completion: .file())
    var template: String?

    @Flag(help: "With --users: price the WAF as if EnableWaf were true.")
    var waf = false

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if remote.endpoint != nil {
            if update { throw ValidationError("--update writes expectations from local results; not with --endpoint") }
            if report { throw ValidationError("--report replays here; not with --endpoint") }
            if stateFromScan != nil {
                throw ValidationError("--state-from-scan seeds the local table; not with --endpoint")
            }
            try remote.validate(poolID: common.userPoolID, clientIDs: common.clientIDs, region: common.region)
        }
        if report && update { throw ValidationError("give --report or --update, not both") }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1, not \(jobs)") }
        if recordedLimits != nil && !report { throw ValidationError("--recorded-limits goes with --report") }
        if algorithm != .calendar && !report { throw ValidationError("--algorithm goes with --report") }
        try validateCost()
        if let authorizerCacheTTL, !(0...3600).contains(authorizerCacheTTL) {
            throw ValidationError("--authorizer-cache-ttl must be from 0 to 3600 seconds, as API Gateway allows")
        }
    }

    func run() async throws {
        LogSetup.bootstrap(level: common.logLevel.value)
        try UsageFailure.requireExisting(paths)
        if let endpoint = remote.endpoint.flatMap(URL.init(string:)) {
            try await runAgainst(endpoint)
            return
        }
        let stack = try await EmulatorStack(options: try common.emulatorOptions())
        if let stateFromScan {
            let scan = try TableScan(contentsOf: URL(fileURLWithPath: stateFromScan))
            try await scan.seed(stack.table, tableName: stack.options.tableName)
            Output.err("seeded \(scan.wireItems.count) items from \(stateFromScan)")
        }
        let targets = (paths.isEmpty ? ["events"] : paths).map { URL(fileURLWithPath: $0) }
        let cacheTTL = try trustRecording(of: targets, in: stack)
        let tokens = try recordedTokens(of: targets, in: stack)
        if report && cost {
            try await runCost(targets, on: stack, cacheTTL: cacheTTL, tokens: tokens)
            return
        }
        if report {
            try await runReport(on: stack, cacheTTL: cacheTTL, tokens: tokens)
            return
        }
        var replayer = Replayer(stack: stack, update: update).cachingAuthorizer(for: cacheTTL)
        replayer.recordedTokens = tokens
        replayer.keepsResults = false
        let progress = Progress()
        let started = ContinuousClock.now
        let tally = await replayer.replay(targets, jobs: jobs) { record, total in
            progress.print(record, json: json, total: total)
        }
        progress.clear()
        try stack.saveState()
        if !json { Output.out(ReplayReporter.summary(tally, elapsed: ContinuousClock.now - started)) }
        if tally.events == 0 {
            Output.err("no events found in \(targets.map(\.relativePath).joined(separator: ", "))")
            throw ExitCode(2)
        }
        if tally.failed > 0 { throw ExitCode(1) }
    }
}

extension ReplayCommand {
    /// `--report`: the what-if report of docs/emulator.md, in text or as one JSON object; exit 0
    /// whatever changed, 2 when there was nothing to replay.
    fileprivate func runReport(
        on stack: EmulatorStack, cacheTTL: TimeInterval, tokens: RecordedTokenSigner?
    ) async throws {
        let recorded = try WhatIfReplayer.limits(
            recordedLimits.map { URL(fileURLWithPath: $0) }, flag: "--recorded-limits")
        var replayer = try WhatIfReplayer(stack: stack, recordedLimits: recorded)
        replayer.exampleLimit = 3
        replayer.algorithm = algorithm
        replayer.replayer = replayer.replayer.cachingAuthorizer(for: cacheTTL)
        replayer.replayer.recordedTokens = tokens
        let targets = (paths.isEmpty ? ["events"] : paths).map { URL(fileURLWithPath: $0) }
        let progress = Progress()
        let report = await replayer.report(targets, jobs: jobs) { position, total in
            progress.show(position, total)
        }
        progress.clear()
        try stack.saveState()
        guard report.events > 0 else {
            for problem in report.problems { Output.err("\(problem.file): \(problem.problem)") }
            Output.err("no events found in \(targets.map(\.relativePath).joined(separator: ", "))")
            throw ExitCode(2)
        }
        Output.out(json ? report.json.jsonString : report.text)
    }
}

extension ReplayCommand {
    /// `--endpoint`: every event sent to a deployed stage in turn and its answer checked; exit 1
    /// when one fails, 2 when there was nothing to replay, 3 when a 5xx storm stopped the run.
    fileprivate func runAgainst(_ endpoint: URL) async throws {
        var replayer = EndpointReplayer(
            endpoint: endpoint,
            token: try await remote.resolveToken(
                poolID: common.userPoolID, clientID: common.clientIDs.first, region: common.region))
        replayer.stormLimit = remote.stormLimit
        replayer.timeout = .milliseconds(Int64(remote.endpointTimeout * 1000))
        let targets = (paths.isEmpty ? ["events"] : paths).map { URL(fileURLWithPath: $0) }
        let progress = Progress()
        let started = ContinuousClock.now
        let outcome = await replayer.replay(targets) { record, total in
            progress.print(record, json: json, total: total)
        }
        progress.clear()
        if !json { Output.out(ReplayReporter.summary(outcome.tally, elapsed: ContinuousClock.now - started)) }
        if let stopped = outcome.stopped {
            Output.err("replay: \(stopped)")
            throw ExitCode(3)
        }
        if outcome.tally.events == 0 {
            Output.err("no events found in \(targets.map(\.relativePath).joined(separator: ", "))")
            throw ExitCode(2)
        }
        if outcome.tally.failed > 0 { throw ExitCode(1) }
    }

    /// Trusts what the recordings' manifests name (unless `--no-recorded-trust`), saying so on
    /// standard error, and returns the authorizer cache's time to live: the flag's, else the
    /// recording's, else template.yaml's.
    fileprivate func trustRecording(of targets: [URL], in stack: EmulatorStack) throws -> TimeInterval {
        let manifest = noRecordedTrust ? nil : try RecordingManifest.read(for: targets)
        if let manifest {
            try manifest.trust(in: stack)
            let issuers = manifest.issuers.map(\.configuration.issuer).joined(separator: ", ")
            Output.err("trusting what the recording trusted (\(RecordingManifest.fileName)): \(issuers)")
        }
        return authorizerCacheTTL ?? manifest?.authorizerCacheTTL ?? AuthorizerCache.templateTimeToLive
    }
}

extension ReplayCommand {
    /// `import --with-tokens`' .inkra-tokens.json beside the folders replayed: a signer of its claims with
    /// the development key, saying so on standard error; `nil` when there is none.
    /// - Throws: ``EmulatorError`` when the file is malformed, or when the stack does not trust the
    ///   development key (`--issuer`, `--user-pool-id` or `--jwks` name another).
    fileprivate func recordedTokens(of targets: [URL], in stack: EmulatorStack) throws -> RecordedTokenSigner? {
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

extension WindowAlgorithm: ExpressibleByArgument {}
