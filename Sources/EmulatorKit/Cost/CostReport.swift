import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage

/// What replayed traffic costs on AWS (`replay bill`): its usage priced for the
/// period it was recorded in, a month at that pace and per 1,000 monthly active users, by
/// function and by tier, with the model's calls at a price the user gives, under the recorded
/// limits and, when `--limits` names others, under those too, side by side.
package struct CostReport: Sendable {
    /// One replay priced: under the recorded limits, or under `--limits`.
    package struct Column: Sendable {
        /// The column's heading: `recorded limits`, or the limits file.
        package var title: String
        /// What the replay used.
        package var usage: TrafficUsage
        /// The bill of everything.
        package var total: Bill
        /// The bill of each function's part.
        package var byFunction: [(function: FunctionName, bill: Bill)]
        /// The bill of each tier's events.
        package var byTier: [(tier: String, bill: Bill)]
        /// What `--algorithm` would change, when it names another than `calendar`.
        package var estimate: AlgorithmEstimate?

        /// Prices a replay's usage.
        package init(
            title: String, usage: TrafficUsage, limits: TierLimits, algorithm: WindowAlgorithm, prices: Prices,
            sizing: Bill.Sizing
        ) {
            self.title = title
            self.usage = usage
            if algorithm != .calendar {
                estimate = AlgorithmEstimate(
                    usage, limits: limits, algorithm: algorithm, prices: prices, sizing: sizing)
            }
            total = Bill(usage.total, prices: prices, sizing: sizing)
            byFunction = FunctionName.allCases.compactMap { function in
                usage.byFunction[function].map { (function, Bill($0, prices: prices, sizing: sizing)) }
            }
            byTier = usage.byTier.keys.sorted().compactMap { tier in
                usage.byTier[tier].map { (tier, Bill($0, prices: prices, sizing: sizing)) }
            }
        }
    }

    /// The prices applied.
    package var prices: Prices
    /// How durations were billed.
    package var sizing: Bill.Sizing
    /// The replay under the recorded limits, then, with `--limits`, under those.
    package var columns: [Column]

    /// How the windows were counted (another than `calendar`: estimated, ``AlgorithmEstimate``).
    package var algorithm: WindowAlgorithm

    /// What one model call costs (`--model-price`), or `nil` when not given: the model is then
    /// counted (its calls) but not priced.
    package var modelPrice: Decimal?

    /// How the model's price was given, for the report (`$0.002 a call`, or per 1,000 tokens with
    /// the tokens a call); `nil`: ``modelPrice`` a call.
    package var modelPriceLabel: String?

    /// Prices replays.
    /// - Parameters:
    ///   - recorded: the usage of the replay under the recorded limits, and those limits.
    ///   - limits: the usage of the replay under `--limits`, with the file's name and its limits,
    ///     when given.
    ///   - algorithm: `--algorithm`: another than `calendar` adds an estimate to each column.
    package init(
        recorded: TrafficUsage, recordedLimits: TierLimits = TierLimits(),
        limits: (file: String, limits: TierLimits, usage: TrafficUsage)? = nil, algorithm: WindowAlgorithm = .calendar,
        prices: Prices, sizing: Bill.Sizing, modelPrice: Decimal? = nil, modelPriceLabel: String? = nil
    ) {
        self.prices = prices
        self.sizing = sizing
        self.algorithm = algorithm
        self.modelPrice = modelPrice
        self.modelPriceLabel = modelPrice.map { price in modelPriceLabel ?? "\(Self.price(price)) a call" }
        columns = [
            Column(
                title: "recorded limits", usage: recorded, limits: recordedLimits, algorithm: algorithm, prices: prices,
                sizing: sizing)
        ]
        if let limits {
            columns.append(
                Column(
                    title: limits.file, usage: limits.usage, limits: limits.limits, algorithm: algorithm,
                    prices: prices, sizing: sizing))
        }
    }

    /// Distinct users in the recording (those the replay under the recorded limits saw).
    package var users: Int { columns.first?.usage.users.count ?? 0 }

    /// The period the recording covers: its first and last event's recorded instant.
    package var period: ClosedRange<Timestamp>? { columns.first?.usage.period }

    /// An average month: a Gregorian year's 365.2425 days over 12, in seconds.
    package static let month: Decimal = 2_629_746

    /// A total per 1,000 users; `nil` when the recording names no user.
    package func perThousandUsers(_ total: Decimal) -> Decimal? {
        users > 0 ? total * 1000 / Decimal(users) : nil
    }

    /// The model's calls in a column, priced at ``modelPrice``; `nil` when no price was given.
    package func model(_ column: Column) -> Decimal? {
        modelPrice.map { $0 * Decimal(column.usage.total.answeredCalls) }
    }

    /// A column's total: AWS's bill, and the model's calls when they are priced.
    package func total(_ column: Column) -> Decimal {
        column.total.total + (model(column) ?? 0)
    }

    /// A total over the recorded period scaled to an average month at the same pace; `nil` when
    /// the events were not recorded at two instants at least.
    package func perMonth(_ total: Decimal) -> Decimal? {
        guard let period, period.upperBound > period.lowerBound else { return nil }
        let seconds = Decimal(period.upperBound.timeIntervalSince(period.lowerBound))
        return total * Self.month / seconds
    }

    /// A month's total per 1,000 monthly active users: the recording's distinct users taken as
    /// the month's, each keeping the pace recorded; `nil` without a month or a user.
    package func perThousandMonthlyActiveUsers(_ total: Decimal) -> Decimal? {
        perMonth(total).flatMap(perThousandUsers)
    }

    /// A total per million events of the recording, the recording's mix kept.
    package func perMillionEvents(_ total: Decimal, events: Int) -> Decimal? {
        events > 0 ? total * 1_000_000 / Decimal(events) : nil
    }

    /// What the report does not price, for its last lines (the model is priced with `--model-price`).
    package static let notPriced =
        "not priced: data transfer out, X-Ray traces, and Lambda's own log records (START, END, REPORT), metric "
        + "and recording lines; with --users, the operator's month adds Cognito, alarms and metrics, secrets, "
        + "DynamoDB storage and backups, stored logs, the schedule and the WAF"
}

extension CostReport {
    /// The report as text, rounded for people (dollars to the cent): a heading naming the
    /// period, one row per billed resource and the model, the total for the period, a month at
    /// its pace and per 1,000 monthly active users, one row per function and tier, a column per
    /// replay, and what is not counted.
    package var text: String {
        var lines: [String] = []
        let events = columns.first?.usage.events ?? 0
        lines.append(
            "Cost: \(events) event\(events == 1 ? "" : "s") replayed in turn, \(Self.recorded(period)), priced at "
                + "\(prices.region) on-demand prices (\(prices.file), read \(prices.readOn); no free tier).")
        let durations =
            sizing.lambdaMilliseconds.map { "\($0) ms per invocation (--lambda-ms)" }
            ?? "as measured here, each rounded up to 1 ms (this machine's, not Lambda's; --lambda-ms N sets one)"
        lines.append("  Lambda: \(sizing.architecture.rawValue), template.yaml's memory; durations \(durations)")
        lines.append("  users: \(users) distinct in the recording")
        let label = 40
        let width = 30
        func row(_ name: String, _ cells: [String]) -> String {
            let padded = cells.enumerated().map { index, cell in
                index == cells.count - 1
                    ? cell : cell.padding(toLength: max(width, cell.count), withPad: " ", startingAt: 0)
            }
            return "  " + name.padding(toLength: max(label, name.count + 2), withPad: " ", startingAt: 0)
                + padded.joined(separator: "  ")
        }
        /// A row: its name, and a cell per column.
        func add(_ name: String, _ cell: (Column) -> String) { lines.append(row(name, columns.map(cell))) }
        add("", \.title)
        for name in Self.rowOrder(sizing.architecture) {
            add(Self.label(name, architecture: sizing.architecture)) { column in
                let line = column.total[name]
                return "\(Self.quantity(line, usage: column.usage.total))  \(line.usd.cents)"
            }
        }
        add(modelPriceLabel.map { "the model, \($0)" } ?? "the model (--model-price USD)") { column in
            let calls = column.usage.total.answeredCalls
            return "\(calls) call\(calls == 1 ? "" : "s")  \(model(column)?.cents ?? "not priced")"
        }
        add("total for the period") { total($0).cents }
        let noMonth = "- (one recorded instant)"
        add("a month at this pace") { perMonth(total($0))?.cents ?? noMonth }
        add("a month per 1,000 monthly active users") {
            perThousandMonthlyActiveUsers(total($0))?.cents ?? (users == 0 ? "- (no users)" : noMonth)
        }
        if algorithm != .calendar {
            add("\(algorithm.rawValue) (estimated)") { column in
                guard let estimate = column.estimate else { return "-" }
                return "\(estimate.admittedToRefused) → refused, \(estimate.refusedToAdmitted) → admitted"
            }
            add("  total, estimated") { column in
                guard let estimate = column.estimate else { return "-" }
                let change = estimate.change + (modelPrice ?? 0) * Decimal(estimate.answeredCallsChange)
                return
                    "\((total(column) + change).cents)  (\(change < 0 ? "-" : "+")\((change < 0 ? -change : change).cents))"
            }
            add("  model calls, estimated") { column in
                "\(column.usage.total.answeredCalls + (column.estimate?.answeredCallsChange ?? 0))"
            }
        }
        lines.append("By function (its Lambda, DynamoDB, API Gateway and log lines, for the period):")
        for function in FunctionName.allCases where columns.contains(where: { $0.usage.byFunction[function] != nil }) {
            add("  " + function.rawValue) { column in
                guard let (_, bill) = column.byFunction.first(where: { $0.function == function }) else { return "-" }
                let count = column.usage.byFunction[function]?.invocations[function]?.count ?? 0
                return "\(count) run\(count == 1 ? "" : "s")  \(bill.total.cents)"
            }
        }
        lines.append("By tier (the caller's; the events of each, for the period; the model not included):")
        for tier in Set(columns.flatMap { $0.usage.byTier.keys }).sorted() {
            add("  " + tier) { column in column.byTier.first { $0.tier == tier }.map { $0.bill.total.cents } ?? "-" }
        }
        let usage = columns.first?.usage ?? TrafficUsage()
        lines.append(
            "  A month is 30.44 days at the recorded pace; its monthly active users are the recording's "
                + "\(users), each keeping that pace. Amounts are rounded to the cent (--json keeps six decimals).")
        if modelPrice == nil {
            lines.append(
                "  The model: each generateQuestions call answered 200 asked it for questions; --model-price USD "
                    + "(the price of one call) adds them to the bill.")
        }
        if usage.cachedAuthorizerAnswers > 0 {
            lines.append(
                "  \(usage.cachedAuthorizerAnswers) authorizer answer\(usage.cachedAuthorizerAnswers == 1 ? "" : "s") "
                    + "came from API Gateway's cache: not invoked, not billed.")
        }
        if algorithm != .calendar {
            let unpriced = columns.compactMap(\.estimate).reduce(0) { $0 + $1.unpriced }
            lines.append(
                "  --algorithm \(algorithm.rawValue) is simulated, not run: a call it decides otherwise is priced as the "
                    + "replay's average call of its tier answered that way"
                    + (unpriced > 0 ? "; \(unpriced) had none to be priced by and are left as they were." : "."))
        }
        if usage.carriedAuthorizerAnswer > 0 {
            lines.append(
                "  \(usage.carriedAuthorizerAnswer) event\(usage.carriedAuthorizerAnswer == 1 ? "" : "s") carried the "
                    + "authorizer's answer (imported or hand-written): the authorizer runs production made for them are not counted."
            )
        }
        for problem in usage.problems { lines.append("  not replayed: \(problem.file): \(problem.problem)") }
        lines.append(
            "  API Gateway: requests refused for authorization are not charged; an HTTP API request is charged per 512 KB "
                + "of request and response body. Logs: the bytes of the functions' lines in Lambda's JSON format.")
        lines.append("  " + Self.notPriced + ".")
        return lines.joined(separator: "\n")
    }

    /// The heading's period: "recorded from A to B (3 days)".
    static func recorded(_ period: ClosedRange<Timestamp>?) -> String {
        guard let period else { return "recorded at no instant the events name" }
        let from = CivilTime.iso8601(period.lowerBound)
        guard period.upperBound > period.lowerBound else { return "all recorded at \(from)" }
        let span = period.upperBound.timeIntervalSince(period.lowerBound)
        return "recorded from \(from) to \(CivilTime.iso8601(period.upperBound)) (\(duration(span)))"
    }

    /// A span in words, rounded: "45 seconds", "20 minutes", "5 hours", "3 days".
    static func duration(_ seconds: TimeInterval) -> String {
        func count(_ value: Double, _ unit: String) -> String {
            let whole = max(1, Int(value.rounded()))
            return "\(whole) \(unit)\(whole == 1 ? "" : "s")"
        }
        if seconds < 120 { return count(seconds, "second") }
        if seconds < 7_200 { return count(seconds / 60, "minute") }
        if seconds < 172_800 { return count(seconds / 3_600, "hour") }
        return count(seconds / 86_400, "day")
    }

    /// A price as given, to the digit it was given: `$0.002`.
    static func price(_ value: Decimal) -> String { "$\(value)" }

    /// The resources in the order rows show them (the GB-second of the architecture only).
    static func rowOrder(_ architecture: LambdaArchitecture) -> [Prices.Name] {
        [
            .apiGatewayRestRequest, .apiGatewayHttpRequest, .lambdaRequest, architecture.gbSecondPrice,
            .dynamoDBWriteRequestUnit, .dynamoDBReadRequestUnit, .cloudWatchLogsIngestionGB,
        ]
    }

    static func label(_ name: Prices.Name, architecture: LambdaArchitecture) -> String {
        switch name {
        case .apiGatewayRestRequest: "API Gateway REST API requests"
        case .apiGatewayHttpRequest: "API Gateway HTTP API requests"
        case .lambdaRequest: "Lambda requests"
        case .lambdaGBSecondX86, .lambdaGBSecondArm64: "Lambda duration, GB-s (\(architecture.rawValue))"
        case .dynamoDBWriteRequestUnit: "DynamoDB write request units"
        case .dynamoDBReadRequestUnit: "DynamoDB read request units"
        case .cloudWatchLogsIngestionGB: "CloudWatch Logs ingestion, bytes"
        // The operator's month's prices (``OperatorMonth``), not rows of the traffic's bill.
        default: name.rawValue
        }
    }

    /// What a line's quantity counts.
    static func unit(_ name: Prices.Name) -> String {
        switch name {
        case .apiGatewayRestRequest, .apiGatewayHttpRequest, .lambdaRequest: "requests"
        case .lambdaGBSecondX86, .lambdaGBSecondArm64: "GB-seconds"
        case .dynamoDBWriteRequestUnit, .dynamoDBReadRequestUnit: "request units"
        case .cloudWatchLogsIngestionGB: "bytes"
        default: "units"
        }
    }

    /// A line's quantity as the report shows it: counts whole, GB-seconds to six places, logs in bytes.
    static func quantity(_ line: Bill.Line, usage: Usage) -> String {
        switch line.name {
        case .lambdaGBSecondX86, .lambdaGBSecondArm64: Decimal.fixed(line.quantity, places: 6)
        case .dynamoDBReadRequestUnit:
            usage.readHalfUnits % 2 == 0 ? "\(usage.readHalfUnits / 2)" : "\(usage.readHalfUnits / 2).5"
        case .cloudWatchLogsIngestionGB: "\(usage.logBytes)"
        default: "\(line.quantity)"
        }
    }
}

extension CostReport {
    /// The report as one JSON object: `prices`, `lambda`, `users`, `period` (`from`, `to`,
    /// `seconds`, or `null`), `modelPricePerCallUsd` (or `null`), `notPriced`, and `recorded` and
    /// (with `--limits`) `limits`, each a column: `limits`, `events`, `lines` (by resource:
    /// `quantity`, `unit`, `usd`), `totalUsd` (AWS's), `modelUsd` (or `null`),
    /// `totalWithModelUsd`, `perMonthUsd` and `perThousandMonthlyActiveUsersUsd` (with the model
    /// when priced; `null` without two recorded instants), `per1000UsersUsd`,
    /// `perMillionEventsUsd`, `answeredCalls`, `byFunction`, `byTier`, `cachedAuthorizerAnswers`,
    /// `carriedAuthorizerAnswer`, `algorithm` (an estimate, or `null`), `problems`. Money is a
    /// string of dollars with six decimals, unrounded sums rounded once.
    package var json: JSONValue {
        var object: JSONObject = [
            "prices": [
                "file": .string(prices.file), "region": .string(prices.region), "read": .string(prices.readOn),
                "freeTier": "not applied",
            ],
            "lambda": [
                "architecture": .string(sizing.architecture.rawValue),
                "milliseconds": sizing.lambdaMilliseconds.map { JSONValue.number($0) } ?? "measured",
            ],
            "users": .number(users),
            "period": period.map { period in
                [
                    "from": .string(CivilTime.iso8601(period.lowerBound)),
                    "to": .string(CivilTime.iso8601(period.upperBound)),
                    "seconds": .number(Int(period.upperBound.timeIntervalSince(period.lowerBound).rounded())),
                ]
            } ?? .null,
            "modelPricePerCallUsd": modelPrice.map { .string("\($0)") } ?? .null,
        ]
        for (index, column) in columns.enumerated() {
            object[index == 0 ? "recorded" : "limits"] = json(column)
        }
        object["notPriced"] = .string(Self.notPriced)
        return .object(object)
    }

    private func json(_ column: Column) -> JSONValue {
        func money(_ value: Decimal) -> JSONValue { .string(Decimal.fixed(value, places: 6)) }
        func lines(_ bill: Bill, usage: Usage) -> JSONValue {
            var lines = JSONObject()
            for name in Self.rowOrder(sizing.architecture) {
                let line = bill[name]
                lines[name.rawValue] = [
                    "quantity": .number(Self.quantity(line, usage: usage)), "unit": .string(Self.unit(name)),
                    "usd": money(line.usd),
                ]
            }
            return .object(lines)
        }
        var functions = JSONObject()
        for (function, bill) in column.byFunction {
            let usage = column.usage.byFunction[function] ?? Usage()
            let runs = usage.invocations[function] ?? Usage.Invocations()
            functions[function.rawValue] = [
                "invocations": .number(runs.count),
                "billedMilliseconds": .number(sizing.milliseconds(runs)),
                "lambdaUsd": money(bill.lambda), "dynamoDBUsd": money(bill.dynamoDB),
                "apiGatewayUsd": money(bill.apiGateway), "logsUsd": money(bill[.cloudWatchLogsIngestionGB].usd),
                "totalUsd": money(bill.total),
            ]
        }
        var tiers = JSONObject()
        for (tier, bill) in column.byTier {
            tiers[tier] = [
                "lines": lines(bill, usage: column.usage.byTier[tier] ?? Usage()), "totalUsd": money(bill.total),
            ]
        }
        return [
            "limits": .string(column.title),
            "events": .number(column.usage.events),
            "lines": lines(column.total, usage: column.usage.total),
            "totalUsd": money(column.total.total),
            "modelUsd": model(column).map(money) ?? .null,
            "totalWithModelUsd": money(total(column)),
            "perMonthUsd": perMonth(total(column)).map(money) ?? .null,
            "perThousandMonthlyActiveUsersUsd": perThousandMonthlyActiveUsers(total(column)).map(money) ?? .null,
            "per1000UsersUsd": perThousandUsers(column.total.total).map(money) ?? .null,
            "perMillionEventsUsd": perMillionEvents(column.total.total, events: column.usage.events).map(money)
                ?? .null,
            "answeredCalls": .number(column.usage.total.answeredCalls),
            "byFunction": .object(functions),
            "byTier": .object(tiers),
            "cachedAuthorizerAnswers": .number(column.usage.cachedAuthorizerAnswers),
            "carriedAuthorizerAnswer": .number(column.usage.carriedAuthorizerAnswer),
            "algorithm": column.estimate.map { estimate in
                [
                    "name": .string(estimate.algorithm.rawValue),
                    "admittedToRefused": .number(estimate.admittedToRefused),
                    "refusedToAdmitted": .number(estimate.refusedToAdmitted),
                    "unpriced": .number(estimate.unpriced),
                    "changeUsd": money(estimate.change),
                    "totalUsd": money(column.total.total + estimate.change),
                    "answeredCalls": .number(column.usage.total.answeredCalls + estimate.answeredCallsChange),
                ]
            } ?? .null,
            "problems": .array(
                column.usage.problems.map { ["file": .string($0.file), "problem": .string($0.problem)] }),
        ]
    }
}
