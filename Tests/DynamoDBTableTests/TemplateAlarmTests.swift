import Foundation
import InkraTestSupport
import Testing

/// The alarms on metrics that more than one function emits watch every function that emits them,
/// and their expression sums every metric they fetch: a function left out (as deleteAccount was
/// from ColdStartAlarm) fails here.
@Suite("template.yaml: alarms cover every function that emits their metric")
struct TemplateAlarmTests {
    /// An alarm's `function` dimensions, and its `Id`s and `Expression`.
    static func alarm(_ name: String) throws -> (functions: Set<String>, ids: [String], expression: String) {
        let lines = try #require(try TemplateText().resources().first { $0.name == name }?.lines, "no \(name)")
        var functions: Set<String> = []
        for line in lines {
            guard let range = line.range(of: "{ Name: function, Value: ") else { continue }
            functions.insert(String(line[range.upperBound...].prefix { $0 != " " && $0 != "}" }))
        }
        let ids = lines.compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("- Id: ") ? String(trimmed.dropFirst("- Id: ".count)) : nil
        }
        return (functions, ids, TemplateText.value("Expression", in: lines) ?? "")
    }

    @Test(
        "Each alarm watches its metric in every function that emits it",
        arguments: [
            ("ColdStartAlarm", false), ("LimitsRefreshFailureAlarm", false), ("UsageStoreFailureAlarm", true),
        ])
    func coversEveryFunction(alarm name: String, storeFunctionsOnly: Bool) throws {
        let handlers = Set(try TemplateText().functions().keys)
        let expected = storeFunctionsOnly ? handlers.subtracting(["authorizer"]) : handlers
        let alarm = try Self.alarm(name)
        #expect(alarm.functions == expected, "\(name)")
        for id in alarm.ids where id != "total" {
            #expect(alarm.expression.contains("FILL(\(id), 0)"), "\(name) fetches \(id) but does not sum it")
        }
        #expect(alarm.ids.count == expected.count + 1, "\(name): one metric per function and the total")
    }
}

/// The production loose ends of issue #50: every function's logs are kept for a while and its
/// failures raise an alarm, the table's 500s are watched on every operation, the seed's p99
/// cold-start alarm and a failed sign-in alarm exist, the user pool names its plan, and
/// docs/operations.md lists each alarm with what it costs.
@Suite("template.yaml: logs, alarms and the user pool's plan")
struct TemplateOperationsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The metrics an alarm fetches, as CloudWatch bills them: each `MetricStat`, or its one metric.
    static func metrics(_ lines: [String]) -> Int {
        max(1, lines.filter { $0.trimmingCharacters(in: .whitespaces) == "MetricStat:" }.count)
    }

    /// The resources of a type, by logical id.
    static func resources(_ type: String) throws -> [(name: String, lines: [String])] {
        try TemplateText().resources().filter { $0.lines.contains("    Type: \(type)") }
    }

    @Test("Every function has a log group with retention, an Errors alarm and a Throttles alarm")
    func everyFunctionWatched() throws {
        let template = try TemplateText()
        let functions = template.resources().filter { $0.lines.contains("    Type: AWS::Serverless::Function") }
        #expect(functions.count == 5)
        let groups = try Self.resources("AWS::Logs::LogGroup")
        let alarms = try Self.resources("AWS::CloudWatch::Alarm")
        for function in functions.map(\.name) {
            let group = groups.first { $0.lines.contains("      LogGroupName: !Sub /aws/lambda/${\(function)}") }
            #expect(
                TemplateText.value("RetentionInDays", in: group?.lines ?? []) == "!Ref LogRetentionDays", "\(function)")
            for metric in ["Errors", "Throttles"] {
                #expect(
                    alarms.contains {
                        $0.lines.contains("      MetricName: \(metric)")
                            && $0.lines.contains("        - { Name: FunctionName, Value: !Ref \(function) }")
                    }, "\(function) has no \(metric) alarm")
            }
        }
    }

    @Test("TableSystemErrorsAlarm sums SystemErrors of every operation the functions are allowed to call")
    func systemErrorsOnEveryOperation() throws {
        let template = try TemplateText()
        // The IAM actions the template grants on the table, and TransactWriteItems, which IAM
        // authorizes by its items' actions but CloudWatch reports as its own operation.
        var granted: Set<String> = ["TransactWriteItems"]
        for line in template.lines {
            var rest = Substring(line)
            while let range = rest.range(of: "dynamodb:") {
                let action = rest[range.upperBound...].prefix { $0.isLetter }
                granted.insert(String(action))
                rest = rest[range.upperBound...]
            }
        }
        let lines = try #require(template.resource("TableSystemErrorsAlarm"))
        let watched = Set(
            lines.compactMap { line -> String? in
                guard let range = line.range(of: "{ Name: Operation, Value: ") else { return nil }
                return String(line[range.upperBound...].prefix { $0 != " " && $0 != "}" })
            })
        #expect(watched == granted)
        let alarm = try TemplateAlarmTests.alarm("TableSystemErrorsAlarm")
        for id in alarm.ids where id != "total" {
            #expect(alarm.expression.contains(id), "the expression does not sum \(id)")
        }
    }

    @Test("The seed's alarm: cold starts slower than 1 s at p99, from every function's init duration")
    func coldStartP99() throws {
        let template = try TemplateText()
        let alarm = try #require(template.resource("ColdStartP99Alarm"))
        #expect(TemplateText.value("ExtendedStatistic", in: alarm) == "p99")
        #expect(TemplateText.value("MetricName", in: alarm) == "InitDuration")
        #expect(TemplateText.value("Threshold", in: alarm) == "!Ref ColdStartP99AlarmMilliseconds")
        let parameter = template.section("Parameters").drop { $0 != "  ColdStartP99AlarmMilliseconds:" }
        #expect(TemplateText.value("Default", in: Array(parameter.prefix(4))) == "1000")
        let filters = try Self.resources("AWS::Logs::MetricFilter")
        let groups = try Self.resources("AWS::Logs::LogGroup").map(\.name)
        #expect(
            Set(filters.compactMap { TemplateText.value("LogGroupName", in: $0.lines) })
                == Set(groups.map { "!Ref \($0)" }))
        for filter in filters {
            #expect(filter.lines.contains { $0.contains("$.record.metrics.initDurationMs > 0") }, "\(filter.name)")
            #expect(
                filter.lines.contains {
                    $0.contains(
                        "MetricNamespace: Inkra/Lambda, MetricName: InitDuration, MetricValue: $.record.metrics.initDurationMs"
                    )
                }, "\(filter.name)")
        }
    }

    @Test("Failed sign-ins: Cognito's SignInSuccesses, its sample count less its sum")
    func failedSignIns() throws {
        let alarm = try TemplateAlarmTests.alarm("FailedSignInsAlarm")
        let lines = try #require(try TemplateText().resource("FailedSignInsAlarm"))
        #expect(alarm.expression == "attempts - successes")
        #expect(lines.filter { $0.contains("MetricName: SignInSuccesses") }.count == 2)
        #expect(TemplateText.value("Stat", in: Array(lines.drop { !$0.contains("- Id: attempts") })) == "SampleCount")
        #expect(TemplateText.value("Stat", in: Array(lines.drop { !$0.contains("- Id: successes") })) == "Sum")
    }

    @Test("The user pool is on the Lite plan and uses no feature of Essentials or Plus")
    func userPoolPlan() throws {
        let pool = try #require(try TemplateText().resource("UserPool"))
        #expect(TemplateText.value("UserPoolTier", in: pool) == "LITE")
        // Essentials: access-token customization (a V2 or V3 pre token generation trigger), managed
        // login, passwordless sign-in, email MFA; Plus: threat protection.
        for feature in [
            "PreTokenGenerationConfig", "SignInPolicy", "EMAIL_OTP", "UserPoolAddOns", "AdvancedSecurityMode",
        ] {
            #expect(!pool.contains { $0.contains(feature) }, "the pool uses \(feature), which Lite does not have")
        }
        #expect(try Self.resources("AWS::Cognito::ManagedLoginBranding").isEmpty)
    }

    @Test("docs/operations.md lists every alarm, with the metrics it is billed for")
    func alarmsDocumented() throws {
        let text = try String(
            contentsOf: Self.root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        var documented: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let count = Int(cells[1].split(separator: " ").first ?? "") else { continue }
            for name in cells[0].split(separator: "`") where name.hasSuffix("Alarm") {
                documented[String(name)] = count
            }
        }
        let alarms = try Self.resources("AWS::CloudWatch::Alarm")
        #expect(Set(documented.keys) == Set(alarms.map(\.name)))
        for alarm in alarms {
            #expect(documented[alarm.name] == Self.metrics(alarm.lines), "\(alarm.name)")
        }
        let total = alarms.reduce(0) { $0 + Self.metrics($1.lines) }
        #expect(text.contains("template.yaml's \(alarms.count) alarms fetch \(total) metrics"))
    }
}
