import Foundation
import InkraJSON

/// The bill an operator gets for a month (`replay bill --users 1000,10000`): the
/// replayed traffic at each number of monthly active users (each keeping the recording's pace),
/// the model, Cognito at the user pool's plan, and every fixed monthly line template.yaml creates
/// (alarms, custom metrics, secrets, the table's storage and point-in-time recovery, stored logs,
/// repairCharges' schedule, and the WAF when its condition holds), as a Markdown table.
package struct OperatorMonth: Sendable {
    /// One line of the bill: what it is, and its dollars at each user count.
    package struct Line: Sendable {
        /// What the line prices, in a word or two (`alarms`), for saying which lines dominate.
        package var name: String
        /// What the line prices, with its quantity where it does not grow with users.
        package var label: String
        /// Dollars a month, one per user count, unrounded.
        package var usd: [Decimal]
    }

    /// The monthly active users of each column.
    package var users: [Int]
    /// Every line summed into the total.
    package var lines: [Line]
    /// Cognito at the plans the template does not choose, for comparison (not in the total).
    package var otherPlans: [Line]
    /// The user pool's plan (`UserPoolTier`, or CloudFormation's default, ESSENTIALS).
    package var plan: String
    /// What the table says under itself: how the lines were counted.
    package var notes: [String]

    /// Each column's total.
    package var totals: [Decimal] {
        users.indices.map { index in lines.reduce(Decimal(0)) { $0 + $1.usd[index] } }
    }

    /// A Cognito plan's price.
    static func cognitoPrice(_ plan: String) -> Prices.Name? {
        switch plan {
        case "LITE": .cognitoLiteMAU
        case "ESSENTIALS": .cognitoEssentialsMAU
        case "PLUS": .cognitoPlusMAU
        default: nil
        }
    }

    /// Prices a month at each user count.
    /// - Parameters:
    ///   - report: the bill of the replay (its column under the recorded limits is used).
    ///   - users: monthly active users, one column each.
    ///   - template: the stack's template.
    ///   - parameters: parameter values that override the template's defaults (`EnableWaf`).
    /// - Returns: `nil` when the recording has no user or no period to scale from.
    package init?(
        _ report: CostReport, users: [Int], template: StackTemplate, parameters: [String: String] = [:]
    ) {
        guard let column = report.columns.first, report.users > 0,
            let monthFactor = report.perMonth(1)
        else { return nil }
        let prices = report.prices
        self.users = users
        let recordedUsers = Decimal(report.users)
        // A month of the recording's traffic per user, scaled to each count.
        func scaled(_ recorded: Decimal) -> [Decimal] {
            users.map { recorded * monthFactor * Decimal($0) / recordedUsers }
        }
        func each(_ value: Decimal) -> [Decimal] { users.map { _ in value } }
        let bill = column.total
        var lines: [Line] = [
            Line(name: "API Gateway", label: "API Gateway requests", usd: scaled(bill.apiGateway)),
            Line(name: "Lambda", label: "Lambda requests and duration", usd: scaled(bill.lambda)),
            Line(name: "DynamoDB requests", label: "DynamoDB request units", usd: scaled(bill.dynamoDB)),
            Line(
                name: "log ingestion", label: "CloudWatch Logs ingestion",
                usd: scaled(bill[.cloudWatchLogsIngestionGB].usd)),
        ]
        func add(_ name: String, _ label: String, _ usd: [Decimal]) {
            lines.append(Line(name: name, label: label, usd: usd))
        }
        var notes: [String] = []
        let calls = column.usage.total.answeredCalls
        if let model = report.model(column) {
            add("the model", "the model, \(report.modelPriceLabel ?? "")", scaled(model))
        } else {
            notes.append(
                "The model is not priced (--model-price); its calls are "
                    + "\(Self.grouped(Decimal(calls) * monthFactor * 1000 / recordedUsers)) a month per 1,000 users.")
        }

        // Cognito, at the pool's plan.
        let pool = template.created("AWS::Cognito::UserPool").first
        let tier = pool?.value("UserPoolTier") ?? "ESSENTIALS"
        plan = tier
        let chosen = pool?.value("UserPoolTier") == nil ? "CloudFormation's default" : template.file
        func cognito(_ plan: String) -> [Decimal] {
            guard let name = Self.cognitoPrice(plan) else { return each(0) }
            return users.map { prices[name].cost(of: Decimal($0)) }
        }
        add("Cognito", "Cognito, \(tier) plan (\(chosen))", cognito(tier))
        otherPlans = ["LITE", "ESSENTIALS", "PLUS"].filter { $0 != tier }.map { other in
            Line(name: "Cognito", label: "Cognito at \(other) instead", usd: cognito(other))
        }

        // Alarms: a metric math alarm is charged for each metric it fetches.
        let alarms = template.created("AWS::CloudWatch::Alarm", parameters: parameters)
        let alarmMetrics = alarms.reduce(0) { $0 + max(1, $1.values("MetricStat").count) }
        add(
            "the alarms", "CloudWatch alarms: \(alarms.count), fetching \(alarmMetrics) metrics",
            each(prices[.cloudWatchAlarmMetric].cost(of: Decimal(alarmMetrics))))

        // Custom metrics: the series the functions' embedded metrics publish (every one has an
        // alarm, a test holds the template to that) and the metric filters' metrics.
        let series = Self.customSeries(alarms) + Self.filterMetrics(template, parameters: parameters)
        add(
            "the custom metrics", "CloudWatch custom metrics: \(series) series, each published every hour (at most)",
            each(prices[.cloudWatchCustomMetric].cost(of: Decimal(series))))

        // Secrets: the stack's own, and the model's key when the model is priced.
        let secrets = template.created("AWS::SecretsManager::Secret").count + (report.modelPrice == nil ? 0 : 1)
        add(
            "the secrets",
            "Secrets Manager: \(secrets) secret\(secrets == 1 ? "" : "s")"
                + (report.modelPrice == nil ? "" : " (the model's key, LLMApiKeySecretArn, included)"),
            each(prices[.secretsManagerSecret].cost(of: Decimal(secrets))))

        // The table's storage and its continuous backups, on what the replay left in the table.
        let gigabyte = Decimal(Bill.bytesPerGB)
        let storedPerUser = Decimal(column.usage.storedBytes) / recordedUsers
        let tableGB = users.map { storedPerUser * Decimal($0) / gigabyte }
        let tables = template.created("AWS::DynamoDB::Table")
        add(
            "DynamoDB storage", "DynamoDB storage (\(Self.grouped(storedPerUser)) bytes a user)",
            tableGB.map { prices[.dynamoDBStorageGB].cost(of: $0) * Decimal(tables.count) })
        let backedUp = tables.filter { $0.value("PointInTimeRecoveryEnabled") == "true" }.count
        if backedUp > 0 {
            add(
                "point-in-time recovery", "DynamoDB point-in-time recovery",
                tableGB.map { prices[.dynamoDBPointInTimeRecoveryGB].cost(of: $0) * Decimal(backedUp) })
        }

        // Stored logs: a month's ingestion kept for the log groups' retention.
        let groups = template.created("AWS::Logs::LogGroup")
        let retention = groups.compactMap { $0.value("RetentionInDays") }.map { value in
            value.hasPrefix("!Ref ") ? template.defaults[String(value.dropFirst(5))] ?? value : value
        }
        if let days = retention.first.flatMap({ Decimal(string: $0) }), Set(retention).count == 1,
            retention.count == groups.count
        {
            let logGB = bill[.cloudWatchLogsIngestionGB].quantity
            add(
                "stored logs", "CloudWatch Logs storage (\(groups.count) log groups, \(retention[0]) days)",
                scaled(prices[.cloudWatchLogsStorageGB].cost(of: logGB * days * 86_400 / CostReport.month)))
        } else {
            notes.append("Stored logs are not priced: the log groups' retention differs or is missing.")
        }

        // Scheduled functions: their invocations whatever the traffic.
        let runsPerMonth = template.created("AWS::Serverless::Function").compactMap { function -> Decimal? in
            guard let rate = function.value("Schedule"), let seconds = Self.seconds(rate: rate) else { return nil }
            return CostReport.month / Decimal(seconds)
        }.reduce(Decimal(0), +)
        if runsPerMonth > 0 {
            let milliseconds = Decimal(report.sizing.lambdaMilliseconds ?? 1)
            let gbSeconds = runsPerMonth * Decimal(TemplateSizing.memoryMB) * milliseconds / Decimal(1024 * 1000)
            add(
                "scheduled runs", "scheduled runs (repairCharges): \(Self.grouped(runsPerMonth)) a month, Lambda only",
                each(
                    prices[.lambdaRequest].cost(of: runsPerMonth)
                        + prices[report.sizing.architecture.gbSecondPrice].cost(of: gbSeconds)))
        }

        // The WAF, when its condition holds.
        let acls = template.created("AWS::WAFv2::WebACL", parameters: parameters)
        if acls.isEmpty {
            notes.append("The WAF is off (template.yaml's EnableWaf default); --waf prices it.")
        } else {
            let rules = acls.reduce(0) { sum, acl in sum + acl.lines.filter { $0.hasPrefix("        - Name: ") }.count }
            let requests = Decimal(column.usage.total.restRequests) * monthFactor / recordedUsers
            add(
                "the WAF", "WAF: \(acls.count) web ACL, \(rules) rules, and its requests",
                users.map {
                    prices[.wafWebACL].cost(of: Decimal(acls.count)) + prices[.wafRule].cost(of: Decimal(rules))
                        + prices[.wafRequest].cost(of: requests * Decimal($0))
                })
        }
        self.lines = lines
        self.notes = notes
    }

    /// The distinct series (metric name and dimensions) in namespace `Inkra` the alarms fetch.
    static func customSeries(_ alarms: [StackTemplate.Resource]) -> Int {
        var series: Set<String> = []
        for alarm in alarms {
            var namespace = ""
            var current: [String] = []
            func flush() {
                if namespace == "Inkra", !current.isEmpty { series.insert(current.sorted().joined(separator: "|")) }
                namespace = ""
                current = []
            }
            for line in alarm.lines.map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if line.hasPrefix("- Id: ") { flush() }
                if line.hasPrefix("Namespace: ") { namespace = String(line.dropFirst("Namespace: ".count)) }
                if line.hasPrefix("MetricName: ") || line.hasPrefix("- { Name: ") { current.append(line) }
            }
            flush()
        }
        return series.count
    }

    /// The distinct metrics the created metric filters publish.
    static func filterMetrics(_ template: StackTemplate, parameters: [String: String]) -> Int {
        Set(
            template.created("AWS::Logs::MetricFilter", parameters: parameters).flatMap { filter in
                zip(filter.values("MetricNamespace"), filter.values("MetricName")).map { "\($0)/\($1)" }
            }
        ).count
    }

    /// The seconds of a `rate(5 minutes)` schedule, or `nil`.
    static func seconds(rate: String) -> Int? {
        guard rate.hasPrefix("rate("), rate.hasSuffix(")") else { return nil }
        let parts = rate.dropFirst(5).dropLast().split(separator: " ")
        guard parts.count == 2, let value = Int(parts[0]) else { return nil }
        switch parts[1] {
        case "minute", "minutes": return value * 60
        case "hour", "hours": return value * 3_600
        case "day", "days": return value * 86_400
        default: return nil
        }
    }

    /// A whole number with thousands separated: `8,766`.
    static func grouped(_ value: Decimal) -> String {
        String(value.rounded(toPlaces: 0).cents.dropFirst().prefix { $0 != "." })
    }
}

extension OperatorMonth {
    /// The line above the table: what it reads.
    package func heading(template: StackTemplate, prices: Prices) -> String {
        "The operator's month: \(template.file)'s stack at \(prices.region) prices (\(prices.file), read "
            + "\(prices.readOn); no free tier but Cognito's), each monthly active user keeping the recording's pace."
    }

    /// The table as JSON: `users`, `lines` (each `label` and `usd`, one per count), `totals`,
    /// `otherPlans`, `plan` and `notes`; money as strings of dollars with six decimals.
    package var json: JSONValue {
        func money(_ values: [Decimal]) -> JSONValue { .array(values.map { .string(Decimal.fixed($0, places: 6)) }) }
        func rows(_ lines: [Line]) -> JSONValue {
            .array(lines.map { ["label": .string($0.label), "usd": money($0.usd)] })
        }
        return [
            "users": .array(users.map { .number($0) }), "plan": .string(plan), "lines": rows(lines),
            "totals": money(totals), "otherPlans": rows(otherPlans), "notes": .array(notes.map { .string($0) }),
        ]
    }

    /// The table in Markdown: a row per line, a column per user count, the total, Cognito at the
    /// other plans, which lines dominate each column, and the notes.
    package var markdown: String {
        var rows: [String] = []
        rows.append("| a month | " + users.map { "\(Self.grouped(Decimal($0))) users" }.joined(separator: " | ") + " |")
        rows.append("| --- |" + String(repeating: " ---: |", count: users.count))
        for line in lines {
            rows.append("| \(line.label) | " + line.usd.map(\.cents).joined(separator: " | ") + " |")
        }
        rows.append("| **total** | " + totals.map { "**\($0.cents)**" }.joined(separator: " | ") + " |")
        for line in otherPlans {
            rows.append(
                "| \(line.label) (not in the total) | "
                    + zip(line.usd, lines.first { $0.label.hasPrefix("Cognito, ") }?.usd ?? line.usd).map {
                        let change = $0 - $1
                        return (change < 0 ? "-" : "+") + (change < 0 ? -change : change).cents
                    }.joined(separator: " | ") + " |")
        }
        rows.append("")
        for (index, count) in users.enumerated() {
            let total = totals[index]
            guard total > 0 else { continue }
            let largest = lines.sorted { $0.usd[index] > $1.usd[index] }.prefix(2)
            let shares = largest.map { line -> String in
                let share = (line.usd[index] * 100 / total).rounded(toPlaces: 0)
                return "\(line.name) (\(share)%)"
            }
            rows.append("- At \(Self.grouped(Decimal(count))) users: \(shares.joined(separator: " and ")) dominate.")
        }
        for note in notes { rows.append("- \(note)") }
        return rows.joined(separator: "\n")
    }
}
