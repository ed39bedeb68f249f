import ArgumentParser
import EmulatorKit
import Foundation
import InkraJSON
import InkraUsage

extension ReplayCommand {
    /// `--help`'s part on the bill.
    static let costDiscussion = """
        A bill: --report --cost replays the traffic in turn on a table of its own that counts DynamoDB's \
        request units (item sizes, transactions at 2×, index writes), measures each Lambda invocation and the \
        bytes of the functions' log lines, and prices them with AWS's on-demand prices of the dated prices file \
        (pricing/us-east-1.json; no free tier): API Gateway requests (REST or HTTP API, by payload version; \
        none for a request refused for authorization), Lambda requests and GB-seconds (template.yaml's memory \
        and architecture), the authorizer's runs (not its cached answers), DynamoDB write and read units, and \
        CloudWatch Logs ingestion; and the model's calls (generateQuestions answered 200) at --model-price \
        dollars a call, when given. It names the period the events were recorded in (their first and last \
        recorded instants) and prints, rounded to the cent, the total for that period, a month (30.44 days) at \
        its pace, and a month per 1,000 monthly active users (the recording's distinct users, each keeping \
        that pace); by function and by tier; --json keeps six decimals. With --limits, the same traffic is \
        replayed under the recorded limits and under --limits, side by side. The state file is left as it was.
          swift run inkra-emulator replay events --report --cost
          swift run inkra-emulator replay recorded/ --report --cost --model-price 0.002
          swift run inkra-emulator replay recorded/ --limits new-limits.json --report --cost --json
        --algorithm sliding-window or token-bucket adds an estimate: the calls that way of counting decides \
        otherwise (simulated, as the what-if report decides them) are priced as the replay's average call of \
        their tier answered that way, and the totals and model calls under it are printed beside the bill.
          swift run inkra-emulator replay recorded/ --report --cost --algorithm sliding-window
        --lambda-ms N bills every invocation N ms instead of this machine's durations; --prices FILE applies \
        another prices file (same shape); --architecture arm64 prices Graviton's GB-second.
          swift run inkra-emulator replay recorded/ --report --cost --lambda-ms 30
          swift run inkra-emulator replay recorded/ --report --cost --prices my-prices.json --architecture arm64
        """

    /// The bill's flags go with `--report --cost`, on the in-memory table.
    func validateCost() throws {
        if cost && !report { throw ValidationError("--cost goes with --report") }
        if !cost {
            if prices != nil { throw ValidationError("--prices goes with --report --cost") }
            if lambdaMilliseconds != nil { throw ValidationError("--lambda-ms goes with --report --cost") }
            if architecture != nil { throw ValidationError("--architecture goes with --report --cost") }
            if modelPrice != nil { throw ValidationError("--model-price goes with --report --cost") }
            return
        }
        if let modelPrice, Self.price(modelPrice) == nil {
            throw ValidationError("--model-price must be US dollars a call such as 0.002, not \(modelPrice)")
        }
        if let lambdaMilliseconds, !(1...900_000).contains(lambdaMilliseconds) {
            throw ValidationError(
                "--lambda-ms must be from 1 to 900000 (Lambda's 15-minute limit), not \(lambdaMilliseconds)")
        }
        if common.dynamoDBEndpoint != nil {
            throw ValidationError("--cost counts request units on the in-memory table; not with --dynamodb-endpoint")
        }
    }

    /// `--report --cost`: replays the traffic under the recorded limits and, with `--limits`, under
    /// those, each on a copy of the starting table, and prints the bill; exit 2 when there was
    /// nothing to replay or the prices file is wrong.
    func runCost(
        _ targets: [URL], on stack: EmulatorStack, cacheTTL: TimeInterval, tokens: RecordedTokenSigner?
    ) async throws {
        let prices: Prices
        do {
            prices = try Prices(contentsOf: URL(fileURLWithPath: self.prices ?? Prices.repositoryFile))
        } catch {
            Output.err("replay: \(error)")
            throw ExitCode(2)
        }
        let recordedFile = recordedLimits.map { URL(fileURLWithPath: $0) }
        let recorded = try WhatIfReplayer.limits(recordedFile, flag: "--recorded-limits")
        let manifest = noRecordedTrust ? nil : try RecordingManifest.read(for: targets)
        func meter(under limitsFile: URL?, flag: String) async throws -> TrafficUsage {
            var replayer = try CostReplayer(
                copying: stack, limitsFile: limitsFile, flag: flag, recordedLimits: recorded)
            try manifest?.trust(in: replayer.stack)
            replayer.replayer = replayer.replayer.cachingAuthorizer(for: cacheTTL)
            replayer.replayer.recordedTokens = tokens
            let progress = Progress()
            let usage = await replayer.meter(targets) { position, total in progress.show(position, total) }
            progress.clear()
            return usage
        }
        let underRecorded = try await meter(under: recordedFile, flag: "--recorded-limits")
        guard underRecorded.events > 0 else {
            for problem in underRecorded.problems { Output.err("\(problem.file): \(problem.problem)") }
            Output.err("no events found in \(targets.map(\.relativePath).joined(separator: ", "))")
            throw ExitCode(2)
        }
        var underLimits: (file: String, limits: TierLimits, usage: TrafficUsage)?
        if let file = stack.options.limitsFile {
            underLimits = (
                file.relativePath, try WhatIfReplayer.limits(file, flag: "--limits"),
                try await meter(under: file, flag: "--limits")
            )
        }
        let report = CostReport(
            recorded: underRecorded, recordedLimits: recorded, limits: underLimits, algorithm: algorithm,
            prices: prices,
            sizing: Bill.Sizing(
                architecture: architecture ?? TemplateSizing.architecture, lambdaMilliseconds: lambdaMilliseconds),
            modelPrice: modelPrice.flatMap(Self.price))
        Output.out(json ? report.json.jsonString : report.text)
    }

    /// A price in dollars as written (`0.002`, `1.5`): digits with at most one point, or `nil`.
    static func price(_ text: String) -> Decimal? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty || parts.count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }), text != "."
        else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }
}

extension LambdaArchitecture: ExpressibleByArgument {}
