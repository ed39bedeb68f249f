import ArgumentParser
import EmulatorKit
import Foundation
import InkraJSON
import InkraUsage

extension ReplayCommand {
    /// `replay bill`: the recorded traffic priced with AWS's on-demand prices (docs/emulator.md).
    struct Bill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Price replayed traffic with AWS's on-demand prices: a bill, and the operator's month.",
            discussion: """
                Replays the traffic in turn on a table of its own that counts DynamoDB's request units (item sizes, transactions at 2×, index writes), measures each Lambda invocation and the \
                bytes of the functions' log lines, and prices them with AWS's on-demand prices of the dated prices file \
                (pricing/us-east-1.json; no free tier): API Gateway requests (REST or HTTP API, by payload version; \
                none for a request refused for authorization), Lambda requests and GB-seconds (template.yaml's memory \
                and architecture), the authorizer's runs (not its cached answers), DynamoDB write and read units, and \
                CloudWatch Logs ingestion; and the model's calls (generateQuestions answered 200) at --model-price \
                dollars a call, or at --model-price USD/1k dollars per 1,000 tokens (--model-tokens N a call; bootstrap \
                does not log the model's token counts, so the default, 600, is an estimate: a prompt of about 150 tokens \
                and an answer of at most 450), when given. It names the period the events were recorded in (their first and last \
                recorded instants) and prints, rounded to the cent, the total for that period, a month (30.44 days) at \
                its pace, and a month per 1,000 monthly active users (the recording's distinct users, each keeping \
                that pace); by function and by tier; --json keeps six decimals. With --limits, the same traffic is \
                replayed under the recorded limits and under --limits, side by side. The state file is left as it was.
                  swift run inkra-emulator replay bill events
                  swift run inkra-emulator replay bill recorded/ --model-price 0.002
                  swift run inkra-emulator replay bill recorded/ --limits new-limits.json --json
                --users 1000,10000,100000 adds the operator's month, a Markdown table (SCALING.md's): the traffic at \
                each count of monthly active users (each keeping the recording's pace), Cognito at the user pool's plan \
                (UserPoolTier in template.yaml) and at the others, the model, and every fixed line template.yaml creates: \
                alarms (per metric fetched), custom metrics, secrets, the table's storage and point-in-time recovery, \
                stored logs, repairCharges' schedule, and the WAF when EnableWaf's default or --waf turns it on; \
                --template FILE reads another template.
                  swift run inkra-emulator replay bill pricing/free-month.jsonl --lambda-ms 30 \
                    --users 1000,10000,100000
                --algorithm sliding-window or token-bucket adds an estimate: the calls that way of counting decides \
                otherwise (simulated, as the what-if report decides them) are priced as the replay's average call of \
                their tier answered that way, and the totals and model calls under it are printed beside the bill.
                  swift run inkra-emulator replay bill recorded/ --algorithm sliding-window
                --lambda-ms N bills every invocation N ms instead of this machine's durations; --prices FILE applies \
                another prices file (same shape); --architecture arm64 prices Graviton's GB-second.
                  swift run inkra-emulator replay bill recorded/ --lambda-ms 30
                  swift run inkra-emulator replay bill recorded/ --prices my-prices.json --architecture arm64
                """
        )

        @OptionGroup var events: EventPaths

        @Flag(help: "Print the bill as one JSON object (six decimals) instead of text.")
        var json = false

        @Option(help: "The prices file (default: pricing/us-east-1.json).", completion: .file())
        var prices: String?

        @Option(
            name: .customLong("lambda-ms"),
            help: "Bill every Lambda invocation this many milliseconds instead of its measured duration.")
        var lambdaMilliseconds: Int?

        @Option(help: "The functions' architecture, x86_64 or arm64 (default: template.yaml's x86_64).")
        var architecture: LambdaArchitecture?

        @Option(
            name: .customLong("model-price"),
            help: ArgumentHelp(
                "The model's price, added to the bill: US dollars a call (each generateQuestions answered 200), "
                    + "or USD/1k for dollars per 1,000 tokens (see --model-tokens).",
                valueName: "usd"))
        var modelPrice: String?

        @Option(
            name: .customLong("model-tokens"),
            help: "With --model-price USD/1k: tokens one call uses, prompt and answer (default: an estimate, 600).")
        var modelTokens: Int?

        @Option(
            help: ArgumentHelp(
                "The operator's month at these monthly active users, comma-separated (1000,10000,100000): "
                    + "the traffic at the recording's pace, Cognito, the model and template.yaml's fixed lines.",
                valueName: "counts"))
        var users: String?

        @Option(help: "With --users: the stack's template (default: template.yaml).", completion: .file())
        var template: String?

        @Flag(help: "With --users: price the WAF as if EnableWaf were true.")
        var waf = false

        @OptionGroup var whatIf: WhatIfOptions

        @OptionGroup var recording: RecordingOptions

        @OptionGroup var common: CommonOptions

        func validate() throws {
            if let modelPrice, Self.price(modelPrice) == nil && Self.perThousandTokens(modelPrice) == nil {
                throw ValidationError(
                    "--model-price must be US dollars a call such as 0.002, or per 1,000 tokens such as 0.0006/1k, not "
                        + modelPrice)
            }
            if let modelTokens {
                guard modelPrice.flatMap(Self.perThousandTokens) != nil else {
                    throw ValidationError("--model-tokens goes with --model-price USD/1k")
                }
                guard modelTokens > 0 else {
                    throw ValidationError("--model-tokens must be above 0, not \(modelTokens)")
                }
            }
            if users != nil && userCounts == nil {
                throw ValidationError(
                    "--users must be monthly active users, comma-separated, such as 1000,10000,100000, not \(users ?? "")"
                )
            }
            if users == nil && (template != nil || waf) {
                throw ValidationError("\(template != nil ? "--template" : "--waf") goes with --users")
            }
            if let lambdaMilliseconds, !(1...900_000).contains(lambdaMilliseconds) {
                throw ValidationError(
                    "--lambda-ms must be from 1 to 900000 (Lambda's 15-minute limit), not \(lambdaMilliseconds)")
            }
            if common.store.dynamoDBEndpoint != nil {
                throw ValidationError(
                    "replay bill counts request units on the in-memory table; not with --dynamodb-endpoint")
            }
        }

        /// Replays the traffic under the recorded limits and, with `--limits`, under those, each on a
        /// copy of the starting table, and prints the bill; exit 2 when there was nothing to replay or
        /// the prices file is wrong.
        func run() async throws {
            let targets = try events.targets()
            let (stack, cacheTTL, tokens) = try await recording.stack(common, for: targets)
            let prices: Prices
            do {
                prices = try Prices(contentsOf: URL(fileURLWithPath: self.prices ?? Prices.repositoryFile))
            } catch {
                Output.err("replay bill: \(error)")
                throw ExitCode(2)
            }
            let recorded = try whatIf.recorded()
            let manifest = try recording.manifest(for: targets)
            func meter(under limitsFile: URL?, flag: String) async throws -> TrafficUsage {
                var replayer = try await CostReplayer(
                    copying: stack, limitsFile: limitsFile, flag: flag, recordedLimits: recorded)
                try manifest?.trust(in: replayer.stack)
                replayer.replayer = replayer.replayer.cachingAuthorizer(for: cacheTTL)
                replayer.replayer.recordedTokens = tokens
                let progress = Progress()
                let usage = await replayer.meter(targets) { position, total in progress.show(position, total) }
                progress.clear()
                return usage
            }
            let underRecorded = try await meter(under: whatIf.recordedFile, flag: "--recorded-limits")
            guard underRecorded.events > 0 else {
                for problem in underRecorded.problems { Output.err("\(problem.file): \(problem.problem)") }
                throw events.nothingFound(in: targets)
            }
            var underLimits: (file: String, limits: TierLimits, usage: TrafficUsage)?
            if let file = stack.options.limitsFile {
                underLimits = (
                    file.relativePath, try WhatIfReplayer.limits(file, flag: "--limits"),
                    try await meter(under: file, flag: "--limits")
                )
            }
            let report = CostReport(
                recorded: underRecorded, recordedLimits: recorded, limits: underLimits, algorithm: whatIf.algorithm,
                prices: prices,
                sizing: EmulatorKit.Bill.Sizing(
                    architecture: architecture ?? TemplateSizing.architecture, lambdaMilliseconds: lambdaMilliseconds),
                modelPrice: model?.perCall, modelPriceLabel: model?.label)
            guard let counts = userCounts else {
                Output.out(json ? report.json.jsonString : report.text)
                return
            }
            let template: StackTemplate
            do {
                template = try StackTemplate(
                    contentsOf: URL(fileURLWithPath: self.template ?? StackTemplate.repositoryFile))
            } catch {
                Output.err("replay bill: \(error)")
                throw ExitCode(2)
            }
            guard
                let month = OperatorMonth(
                    report, users: counts, template: template, parameters: waf ? ["EnableWaf": "true"] : [:])
            else {
                Output.err("replay bill: --users needs a recording with users, recorded at two instants at least")
                throw ExitCode(2)
            }
            if json {
                var object = report.json.object ?? [:]
                object["operatorMonth"] = month.json
                Output.out(JSONValue.object(object).jsonString)
            } else {
                Output.out(
                    report.text + "\n\n" + month.heading(template: template, prices: prices) + "\n\n" + month.markdown)
            }
        }

        /// `--users`' counts, or `nil` when absent or not whole numbers above 0.
        var userCounts: [Int]? {
            guard let users else { return nil }
            let counts = users.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
            guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) > 0 }) else { return nil }
            return counts.compactMap { $0 }
        }

        /// The tokens a call is taken to use with a price per 1,000 tokens, when `--model-tokens` is not
        /// given: bootstrap does not log the model's token counts, so this is an estimate — a prompt of
        /// about 150 tokens with the topic, and an answer of at most 450 (`max_tokens` for the default
        /// 5 questions: 80 a question and 50).
        static let estimatedTokensPerCall = 600

        /// `--model-price` as dollars a call, and how it was given.
        var model: (perCall: Decimal, label: String)? {
            guard let modelPrice else { return nil }
            if let perCall = Self.price(modelPrice) { return (perCall, "$\(perCall) a call") }
            guard let perThousand = Self.perThousandTokens(modelPrice) else { return nil }
            let tokens = modelTokens ?? Self.estimatedTokensPerCall
            let how = modelTokens == nil ? "estimated" : "--model-tokens"
            return (
                perThousand * Decimal(tokens) / 1000,
                "$\(perThousand) per 1,000 tokens, \(tokens) tokens a call (\(how))"
            )
        }

        /// A price per 1,000 tokens as written (`0.0006/1k`), or `nil`.
        static func perThousandTokens(_ text: String) -> Decimal? {
            guard text.hasSuffix("/1k") else { return nil }
            return price(String(text.dropLast(3)))
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
}

extension LambdaArchitecture: ExpressibleByArgument {}
