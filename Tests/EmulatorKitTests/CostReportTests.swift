import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import Logging
import Testing

/// The bill of `replay bill`, worked by hand. Prices are pricing/us-east-1.json's
/// (https://aws.amazon.com/api-gateway/pricing/, https://aws.amazon.com/lambda/pricing/,
/// https://aws.amazon.com/dynamodb/pricing/on-demand/, https://aws.amazon.com/cloudwatch/pricing/).
@Suite("replay bill: the bill")
struct CostReportTests {
    static let pricesURL = Repository.root.appendingPathComponent(Prices.repositoryFile)

    static func prices() throws -> Prices { try Prices(contentsOf: pricesURL) }

    @Test("The repository's prices file holds every price, dated, with its page")
    func repositoryPrices() throws {
        let prices = try Self.prices()
        #expect(prices.region == "us-east-1")
        let expected: [(Prices.Name, Decimal, Int)] = [
            (.apiGatewayRestRequest, Decimal(string: "3.50")!, 1_000_000),
            (.apiGatewayHttpRequest, Decimal(string: "1.00")!, 1_000_000),
            (.lambdaRequest, Decimal(string: "0.20")!, 1_000_000),
            (.lambdaGBSecondX86, Decimal(string: "0.0000166667")!, 1),
            (.lambdaGBSecondArm64, Decimal(string: "0.0000133334")!, 1),
            (.dynamoDBWriteRequestUnit, Decimal(string: "0.625")!, 1_000_000),
            (.dynamoDBReadRequestUnit, Decimal(string: "0.125")!, 1_000_000),
            (.cloudWatchLogsIngestionGB, Decimal(string: "0.50")!, 1),
        ]
        for (name, usd, per) in expected {
            #expect(prices[name].usd == usd, "\(name)")
            #expect(prices[name].per == per, "\(name)")
            #expect(prices[name].source.hasPrefix("https://aws.amazon.com/"), "\(name)")
            #expect(prices[name].read == "2026-11-27", "\(name)")
        }
    }

    /// A prices file's faults, each named with the file and the member.
    static let faults: [(edit: @Sendable (inout JSONValue) -> Void, message: String)] = [
        ({ $0.set(nil, at: ["prices", "lambdaRequest"]) }, "\"prices.lambdaRequest\" is missing or not an object"),
        (
            { $0.set(.string("cheap"), at: ["prices", "dynamoDBWriteRequestUnit", "usd"]) },
            "\"prices.dynamoDBWriteRequestUnit.usd\" must be a price in dollars such as \"3.50\", not \"cheap\""
        ),
        (
            { $0.set(.number(0), at: ["prices", "lambdaRequest", "per"]) },
            "\"prices.lambdaRequest.per\" must be a whole"
        ),
        (
            { $0.set(.number("-1.5"), at: ["prices", "lambdaRequest", "usd"]) },
            "\"prices.lambdaRequest.usd\" must be a price in dollars such as \"3.50\", not -1.5"
        ),
        (
            { $0.set(.bool(true), at: ["prices", "lambdaRequest", "usd"]) },
            "\"prices.lambdaRequest.usd\" must be a price in dollars such as \"3.50\", not true"
        ),
        (
            { $0.set(.string("last week"), at: ["prices", "cloudWatchLogsIngestionGB", "read"]) },
            "\"prices.cloudWatchLogsIngestionGB.read\" must be the date the price was read, YYYY-MM-DD"
        ),
        (
            { $0.set(nil, at: ["prices", "apiGatewayRestRequest", "source"]) },
            "\"prices.apiGatewayRestRequest.source\""
        ),
        (
            {
                $0.set(
                    [["upTo": .number(10000), "usd": "0"], ["upTo": .number(5000), "usd": "1"], ["usd": "2"]],
                    at: ["prices", "cognitoLiteMAU", "tiers"])
            },
            "\"prices.cognitoLiteMAU.tiers[1].upTo\" must be a whole number of units above the band before"
        ),
        (
            {
                $0.set(
                    [["upTo": .number(10000), "usd": "0"], ["upTo": .number(20000), "usd": "0.015"]],
                    at: ["prices", "cognitoEssentialsMAU", "tiers"])
            },
            "\"prices.cognitoEssentialsMAU.tiers[1].upTo\" must be absent in the last band"
        ),
        (
            { $0.set([["usd": "free"]], at: ["prices", "cognitoLiteMAU", "tiers"]) },
            "\"prices.cognitoLiteMAU.tiers[0].usd\" must be a price in dollars such as \"3.50\", not \"free\""
        ),
        ({ $0.set(.string("EUR"), at: ["currency"]) }, "\"currency\" must be \"USD\""),
        ({ $0.set(nil, at: ["region"]) }, "\"region\" is missing"),
    ]

    @Test("A banded price charges each band's units at its price (Cognito's Lite plan)")
    func bands() throws {
        let lite = try Self.prices()[.cognitoLiteMAU]
        // 10,000 free, 90,000 at $0.0055, 50,000 at $0.0046 (https://aws.amazon.com/cognito/pricing/).
        #expect(lite.cost(of: 10_000) == 0)
        #expect(lite.cost(of: 150_000) == Decimal(string: "725")!)
        #expect(try Self.prices()[.cognitoPlusMAU].cost(of: 1_000) == 20)
    }

    @Test("A malformed prices file is an error naming the file and the member", arguments: faults.indices)
    func malformed(_ index: Int) throws {
        var json = try JSONParser.parse(Array(Data(contentsOf: Self.pricesURL)))
        Self.faults[index].edit(&json)
        #expect {
            _ = try Prices(json: json, file: "bad-prices.json")
        } throws: { error in
            "\(error)".hasPrefix("prices file bad-prices.json: ") && "\(error)".contains(Self.faults[index].message)
        }
    }

    @Test("A missing prices file, or one that is not JSON, is named")
    func missingFile() throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("none.json")
        #expect { _ = try Prices(contentsOf: missing) } throws: {
            "\($0)".contains("prices file \(missing.path): cannot be read")
        }
        let garbage = folder.appendingPathComponent("garbage.json")
        try Data("{prices".utf8).write(to: garbage)
        #expect { _ = try Prices(contentsOf: garbage) } throws: {
            "\($0)".contains("prices file \(garbage.path): not valid JSON")
        }
    }

    /// Usage with a bit of everything: 3 REST requests, 2 HTTP API steps, generateQuestions run
    /// twice for 5 ms billed and the authorizer once for 1 ms, 14 write units, 1.5 read units,
    /// 1 MiB of logs.
    static var usage: Usage {
        var usage = Usage()
        usage.restRequests = 3
        usage.httpRequests = 2
        usage.invocations[.generateQuestions] = Usage.Invocations(count: 2, billedMilliseconds: 5)
        usage.invocations[.authorizer] = Usage.Invocations(count: 1, billedMilliseconds: 1)
        usage.writeUnits = 14
        usage.readHalfUnits = 3
        usage.logBytes = 1_048_576
        return usage
    }

    @Test("Each line is quantity × price, summed exactly (x86_64, 256 MB, durations as measured)")
    func billByHand() throws {
        let bill = Bill(Self.usage, prices: try Self.prices(), sizing: Bill.Sizing())
        // 3 × $3.50 / 1e6; 2 × $1.00 / 1e6; 3 invocations × $0.20 / 1e6.
        #expect(bill[.apiGatewayRestRequest].usd == Decimal(string: "0.0000105"))
        #expect(bill[.apiGatewayHttpRequest].usd == Decimal(string: "0.000002"))
        #expect(bill[.lambdaRequest].usd == Decimal(string: "0.0000006"))
        // 0.25 GB × 6 ms = 0.0015 GB-s, × $0.0000166667.
        #expect(bill[.lambdaGBSecondX86].quantity == Decimal(string: "0.0015"))
        #expect(bill[.lambdaGBSecondX86].usd == Decimal(string: "0.00000002500005"))
        // 14 × $0.625 / 1e6; 1.5 × $0.125 / 1e6; 1/1024 GB × $0.50.
        #expect(bill[.dynamoDBWriteRequestUnit].usd == Decimal(string: "0.00000875"))
        #expect(bill[.dynamoDBReadRequestUnit].usd == Decimal(string: "0.0000001875"))
        #expect(bill[.cloudWatchLogsIngestionGB].usd == Decimal(string: "0.00048828125"))
        #expect(bill.total == Decimal(string: "0.00051034375005"))
        #expect(bill.total.dollars == "$0.000510")
    }

    @Test("--lambda-ms bills every invocation that long; arm64 prices Graviton's GB-second")
    func lambdaMilliseconds() throws {
        let prices = try Self.prices()
        let fixed = Bill(Self.usage, prices: prices, sizing: Bill.Sizing(lambdaMilliseconds: 30))
        // 3 invocations × 30 ms × 0.25 GB = 0.0225 GB-s.
        #expect(fixed[.lambdaGBSecondX86].quantity == Decimal(string: "0.0225"))
        #expect(fixed[.lambdaGBSecondX86].usd == Decimal(string: "0.00000037500075"))
        let arm = Bill(Self.usage, prices: prices, sizing: Bill.Sizing(architecture: .arm64))
        #expect(arm[.lambdaGBSecondArm64].usd == Decimal(string: "0.0000000200001"))
        #expect(arm[.lambdaGBSecondX86].usd == 0)
    }

    /// "Duration is calculated from the time your code begins executing until it returns or
    /// otherwise terminates, rounded up to the nearest 1 ms" (https://aws.amazon.com/lambda/pricing/).
    @Test("A measured duration is billed rounded up to the millisecond, at least 1")
    func billedMilliseconds() {
        #expect(CostReplayer.billedMilliseconds(.microseconds(1001)) == 2)
        #expect(CostReplayer.billedMilliseconds(.microseconds(100)) == 1)
        #expect(CostReplayer.billedMilliseconds(.milliseconds(3)) == 3)
        #expect(CostReplayer.billedMilliseconds(.seconds(2)) == 2000)
    }

    @Test("Money prints with six decimals, rounded half up")
    func dollars() {
        #expect(Decimal(string: "0.0000005")!.dollars == "$0.000001")
        #expect(Decimal(string: "0.0000004")!.dollars == "$0.000000")
        #expect(Decimal(string: "12.3456789")!.dollars == "$12.345679")
        #expect(Decimal(0).dollars == "$0.000000")
    }

    @Test("A log line counts as the JSON line Lambda's JSON format would ingest, its line feed included")
    func logLine() {
        let line =
            #"{"timestamp":"2026-11-17T10:00:00.000Z","level":"INFO","message":"refused","logger":"inkra.x","#
            + #""requestId":"8476a536-e9f4-11e8-9739-2dfe598c3fcd","#
            + #""traceId":"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1","user":"u"}"#
        let counter = LogBytes()
        let logger = counter.logger(label: "inkra.x")
        logger.info("refused", metadata: ["user": "u"])
        logger.debug("below INFO: not written on Lambda")
        #expect(counter.count == line.utf8.count + 1)
    }

    /// 2027-01-15T08:00:00Z.
    static let start = Timestamp(timeIntervalSince1970: 1_800_000_000)

    /// Six events: alice (free) asks for questions three times in an hour over REST (the third
    /// refused by the default 2 an hour; the second and third answered by the authorizer cache),
    /// then reads her usage (cached); bob (free) asks once over the HTTP API; a request without a
    /// token is refused by API Gateway.
    static func recording(in folder: URL) throws {
        let alice = try DevelopmentTokens.mint(
            with: Repository.developmentKey, claims: .init(sub: "bill-alice"), at: start)
        let bob = try DevelopmentTokens.mint(with: Repository.developmentKey, claims: .init(sub: "bill-bob"), at: start)
        let events: [(SampleEvents.Kind, String?, TimeInterval, Int)] = [
            (.restGenerate, alice, 0, 200), (.restGenerate, alice, 60, 200), (.restGenerate, alice, 120, 429),
            (.restUsage, alice, 180, 200), (.httpGenerate, bob, 240, 200), (.restGenerate, nil, 300, 401),
        ]
        for (index, (kind, token, seconds, status)) in events.enumerated() {
            var event = SampleEvents.event(
                kind, token: token, at: start.addingTimeInterval(seconds), requestID: "bill-\(index + 1)")
            event.set(.string(kind.function.rawValue), at: ["x-inkra-function"])
            let name = folder.appendingPathComponent("0\(index + 1)-\(kind.rawValue)")
            try Data(event.prettyJSONString.utf8).write(to: name.appendingPathExtension("json"))
            let expected: JSONValue = ["statusCode": .number(status)]
            try Data(expected.prettyJSONString.utf8).write(to: name.appendingPathExtension("expected.json"))
        }
    }

    static func meter(_ folder: URL, limits: URL? = nil) async throws -> TrafficUsage {
        var replayer = try await CostReplayer(options: Repository.options(), limitsFile: limits)
        replayer.replayer = replayer.replayer.cachingAuthorizer(for: 300)
        return await replayer.meter([folder])
    }

    /// By hand, from DynamoDB's rules (read-write-operations.html) and the store's requests: every
    /// consume first reads the standing refusal, eventually consistent (half a unit); an admitted
    /// call is then a transaction of 3 new items under 1 KB (2 units each: 6) and a consistent
    /// read of the month (1); a refusal's cancelled transaction is not counted (CountingTable) and
    /// its marks update the day item and add it to GSI1 (1 + 1) and write the standing refusal
    /// (1); a user's first call of the month, their token carrying an email, looks for usage
    /// carried over from a deleted account of that address (a Query finding nothing, half a unit);
    /// checkUsage reads 3 items consistently (3). API Gateway does not charge the request refused
    /// without a token.
    @Test("A tiny recording's units, requests and invocations, worked by hand")
    func tinyRecording() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.recording(in: folder)
        let usage = try await Self.meter(folder)
        #expect(usage.problems.isEmpty, "\(usage.problems)")
        #expect(usage.events == 6)
        #expect(usage.users == ["bill-alice", "bill-bob"])
        let total = usage.total
        #expect(total.restRequests == 4)
        #expect(total.httpRequests == 1)
        #expect(total.invocations[.authorizer]?.count == 2)
        #expect(total.invocations[.generateQuestions]?.count == 4)
        #expect(total.invocations[.checkUsage]?.count == 1)
        #expect(total.writeUnits == 6 + 6 + (2 + 1) + 0 + 6)
        // The month's reads and checkUsage's, in halves; then four standing-refusal reads and two
        // users' carried-usage queries, half a unit each.
        #expect(total.readHalfUnits == 2 * (1 + 1 + 0 + 3 + 1) + 4 + 2)
        #expect(total.answeredCalls == 3)
        #expect(total.logBytes > 0)
        #expect(usage.cachedAuthorizerAnswers == 3)
        #expect(usage.byFunction[.checkUsage]?.readHalfUnits == 6)
        #expect(usage.byFunction[.authorizer]?.invocations[.authorizer]?.count == 2)
        #expect(usage.byFunction[.generateQuestions]?.invocations[.authorizer] == nil)
        #expect(Set(usage.byTier.keys) == ["free", "unknown"])
        #expect(usage.byTier["unknown"]?.restRequests == 0)

        // Priced with 10 ms an invocation: 4 × $3.50 + 1 × $1.00 + 7 × $0.20 per million, 7 × 10 ms
        // × 0.25 GB = 0.0175 GB-s × $0.0000166667, 21 × $0.625 and 9 × $0.125 per million, and
        // the logs' bytes at $0.50 a GB.
        let report = CostReport(recorded: usage, prices: try Self.prices(), sizing: Bill.Sizing(lambdaMilliseconds: 10))
        let logs = Decimal(total.logBytes) * Decimal(string: "0.50")! / Decimal(Bill.bytesPerGB)
        let bill = try #require(report.columns.first).total
        #expect(bill.total == Decimal(string: "0.00003094166725")! + logs)
        #expect(report.perThousandUsers(bill.total) == bill.total * 1000 / 2)
    }

    @Test("Under a lower hourly limit the refused call costs no model call and fewer writes")
    func limitsChangeTheBill() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.recording(in: folder)
        let limits = folder.appendingPathComponent("hourly-1.json")
        try Data(#"{"free": {"hourly": 1}}"#.utf8).write(to: limits)
        let recorded = try await Self.meter(folder)
        let lower = try await Self.meter(folder, limits: limits)
        // alice's second call is refused now: its marks and the standing refusal (2 + 1) instead of
        // a charge (6) and its read (1); her third is refused again by the standing refusal alone,
        // without a write (it read the standing refusal, half a unit, as every consume does).
        #expect(lower.total.writeUnits == 6 + (2 + 1) + 0 + 0 + 6)
        #expect(lower.total.readHalfUnits == 2 * (1 + 0 + 0 + 3 + 1) + 4 + 2)
        #expect(lower.total.answeredCalls == 2)
        #expect(lower.total.invocations[.generateQuestions]?.count == 4)
        let prices = try Self.prices()
        let report = CostReport(
            recorded: recorded, limits: ("hourly-1.json", try TierLimits(contentsOfFile: limits.path), lower),
            prices: prices,
            sizing: Bill.Sizing(lambdaMilliseconds: 10))
        let (before, after) = (report.columns[0].total, report.columns[1].total)
        #expect(
            before[.dynamoDBWriteRequestUnit].usd - after[.dynamoDBWriteRequestUnit].usd
                == Decimal(string: "0.00000375")
        )
        #expect(
            before[.dynamoDBReadRequestUnit].usd - after[.dynamoDBReadRequestUnit].usd == Decimal(string: "0.000000125")
        )
        let text = report.text
        #expect(text.contains("hourly-1.json"), "\(text)")
        #expect(text.contains("the model (--model-price USD)           3 calls  not priced"), "\(text)")
    }
}

extension CostReportTests {
    /// SCALING.md's user, as scripts/cost-recording.py writes them: 10 sessions on 10 days of a
    /// month, each reading the usage at its start and two minutes later, the first five asking
    /// for questions one minute in; one token for the month, so the authorizer runs once a session.
    static func freeMonth(users: [String], in folder: URL) throws {
        let month = Timestamp(timeIntervalSince1970: 1_793_491_200)  // 2026-11-01T00:00:00Z
        var index = 0
        for user in users {
            var claims = DevelopmentTokens.Claims(sub: user)
            claims.expiresIn = 31 * 86400
            let token = try DevelopmentTokens.mint(with: Repository.developmentKey, claims: claims, at: month)
            for session in 0..<10 {
                let begins = month.addingTimeInterval(TimeInterval(session * 3 * 86400 + 10 * 3600))
                var calls: [(TimeInterval, SampleEvents.Kind)] = [(0, .restUsage), (120, .restUsage)]
                if session < 5 { calls.insert((60, .restGenerate), at: 1) }
                for (seconds, kind) in calls {
                    index += 1
                    var event = SampleEvents.event(
                        kind, token: token, at: begins.addingTimeInterval(seconds), requestID: "month-\(index)")
                    event.set(.string(kind.function.rawValue), at: ["x-inkra-function"])
                    let name = String(format: "%04d-%@.json", index, kind.rawValue)
                    try Data(event.prettyJSONString.utf8).write(to: folder.appendingPathComponent(name))
                }
            }
        }
    }

    /// SCALING.md's "Cost (billed)": a free user who uses the free tier fully costs, a month, 25
    /// REST requests, 35 invocations (10 of the authorizer), 30 write units and 68.5 read units
    /// (65, and half a unit for each call's standing-refusal read and for the first calls'
    /// carried-usage queries); at 30 ms an invocation, $0.000126 (the bill's $0.126188 per 1,000
    /// users, its `per1000UsersUsd`).
    @Test("SCALING.md's free user-month: requests, invocations and units as the bill counts them")
    func scalingUserMonth() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.freeMonth(users: ["month-ada", "month-bo"], in: folder)
        let usage = try await Self.meter(folder)
        #expect(usage.problems.isEmpty, "\(usage.problems)")
        #expect(usage.total.restRequests == 2 * 25)
        #expect(usage.total.invocations[.authorizer]?.count == 2 * 10)
        #expect(usage.total.invocationCount == 2 * 35)
        #expect(usage.total.writeUnits == 2 * 30)
        // 65 units, and half a unit for each generateQuestions' standing-refusal read (5), its
        // first call's carried-usage query (1), and the first usage read's, before the month opened (1).
        #expect(usage.total.readHalfUnits == 2 * (2 * 65 + 5 + 1 + 1))
        #expect(usage.total.answeredCalls == 2 * 5)
        let report = CostReport(recorded: usage, prices: try Self.prices(), sizing: Bill.Sizing(lambdaMilliseconds: 30))
        let bill = try #require(report.columns.first).total
        // 50 × $3.50 + 70 × $0.20 + 60 × $0.625 + 137 × $0.125 per million, and 70 × 30 ms × 0.25 GB
        // = 0.525 GB-s × $0.0000166667.
        #expect(bill.total == Decimal(string: "0.0002523750175")!)
        #expect(report.perThousandUsers(bill.total) == Decimal(string: "0.12618750875"))
    }
}

extension CostReportTests {
    /// events/free-user-limits under the default limits (docs/emulator.md's what-if by algorithm):
    /// the sliding window refuses day 2's 09:00 call, which the calendar admitted, and admits its
    /// 11:00 call, which the calendar month refused; the token bucket answers as the calendar.
    /// Each flipped call is priced as the mean replayed call of its tier answered as it now is.
    @Test("--algorithm estimates the bill of the calls another way of counting decides otherwise")
    func algorithmEstimate() async throws {
        let replayer = try await CostReplayer(options: Repository.options(), limitsFile: nil)
        let usage = await replayer.meter([Repository.events.appendingPathComponent("free-user-limits")])
        let prices = try Self.prices()
        let sizing = Bill.Sizing(lambdaMilliseconds: 10)
        let sliding = AlgorithmEstimate(
            usage, limits: TierLimits(), algorithm: .slidingWindow, prices: prices, sizing: sizing)
        #expect(sliding.admittedToRefused == 1)
        #expect(sliding.refusedToAdmitted == 1)
        #expect(sliding.unpriced == 0)
        #expect(sliding.answeredCallsChange == 0)
        let priced = usage.calls.map { ($0.call, Bill($0.usage, prices: prices, sizing: sizing).total) }
        func mean(_ admission: (Admission) -> Bool) -> Decimal {
            let bills = priced.filter { admission($0.0.replayed) }.map(\.1)
            return bills.reduce(0, +) / Decimal(bills.count)
        }
        let admittedMean = mean { $0 == .admitted }
        let refusedMean = mean { if case .refused = $0 { true } else { false } }
        func bill(at instant: String) throws -> Decimal {
            try #require(priced.first { $0.0.recordedAt == CivilTime.instant(iso8601: instant) }).1
        }
        let expected =
            refusedMean - (try bill(at: "2026-11-18T09:00:00Z")) + admittedMean - (try bill(at: "2026-11-18T11:00:00Z"))
        #expect(sliding.change == expected)
        #expect(sliding.change != 0)

        let bucket = AlgorithmEstimate(
            usage, limits: TierLimits(), algorithm: .tokenBucket, prices: prices, sizing: sizing)
        #expect(bucket.admittedToRefused + bucket.refusedToAdmitted == 0)
        #expect(bucket.change == 0)

        let text = CostReport(recorded: usage, algorithm: .slidingWindow, prices: prices, sizing: sizing).text
        #expect(text.contains("sliding-window (estimated)              1 → refused, 1 → admitted"), "\(text)")
    }
}

extension CostReportTests {
    /// `import --with-tokens` traffic: replay signs a token from the recorded claims, so the
    /// authorizer runs (once, then its cache answers) and is billed; without the claims, the
    /// imported events carry the authorizer's answer and the bill says its runs are not counted.
    @Test("Imported events with recorded claims bill the authorizer; without them, the report says it cannot")
    func importedTokens() async throws {
        var tokens = RecordedTokens()
        tokens.add(RecordedTokensTests.authorizerRecording("u-premium", at: 0, id: "auth-1", tier: "premium"))
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (index, offset) in [Int64(1_000), 100_000].enumerated() {
            let event = RecordedTokensTests.usageEvent(user: "u-premium", tier: "free", at: offset)
            try Data(event.prettyJSONString.utf8).write(to: folder.appendingPathComponent("usage-\(index).json"))
        }
        var signed = try await CostReplayer(options: Repository.options(), limitsFile: nil)
        signed.replayer.recordedTokens = RecordedTokenSigner(
            tokens: tokens, key: Repository.developmentKey,
            configuration: try signed.stack.options.cognitoConfiguration())
        let withTokens = await signed.meter([folder])
        #expect(withTokens.problems.isEmpty, "\(withTokens.problems)")
        #expect(withTokens.total.invocations[.authorizer]?.count == 1)
        #expect(withTokens.cachedAuthorizerAnswers == 1)
        #expect(withTokens.carriedAuthorizerAnswer == 0)
        #expect(withTokens.byTier.keys.sorted() == ["premium"])

        let injected = await (try await CostReplayer(options: Repository.options(), limitsFile: nil)).meter([folder])
        #expect(injected.total.invocations[.authorizer] == nil)
        #expect(injected.carriedAuthorizerAnswer == 2)
        #expect(injected.byTier.keys.sorted() == ["free"])
        let text = CostReport(recorded: injected, prices: try Self.prices(), sizing: Bill.Sizing()).text
        #expect(text.contains("2 events carried the authorizer's answer"), "\(text)")
    }
}

/// template.yaml decides the memory and architecture the bill prices.
@Suite("replay bill: template.yaml's sizes")
struct CostTemplateTests {
    @Test("Every function's memory is template.yaml's MemorySize, and the architecture its default")
    func sizes() throws {
        let template = try TemplateText()
        let globals = template.section("Globals")
        let memory = try #require(TemplateText.value("MemorySize", in: globals))
        for (handler, lines) in template.functions() {
            _ = try #require(FunctionName(rawValue: handler), "\(handler)")
            let own = TemplateText.value("MemorySize", in: lines) ?? memory
            #expect(Int(own) == TemplateSizing.memoryMB, "\(handler)")
        }
        let parameters = template.section("Parameters")
        let start = try #require(parameters.firstIndex(of: "  Architecture:"))
        let block = Array(parameters[start...].prefix(4))
        #expect(TemplateText.value("Default", in: block) == TemplateSizing.architecture.rawValue)
    }
}

@Suite("replay bill (spawned)")
struct CostCommandTests {
    @Test("The built emulator prints the bill under the recorded limits and --limits, in text and JSON")
    func spawned() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = folder.appendingPathComponent("events")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        try CostReportTests.recording(in: events)
        let limits = folder.appendingPathComponent("hourly-1.json")
        try Data(#"{"free": {"hourly": 1}}"#.utf8).write(to: limits)

        let json = try await runEmulator([
            "replay", "bill", events.path, "--lambda-ms", "10", "--limits", limits.path, "--json",
        ])
        #expect(json.status == 0, "\(json.standardError)")
        let object = try JSONParser.parse(json.standardOutput)
        #expect(object["users"] == 2)
        #expect(object["lambda"]?["milliseconds"] == 10)
        #expect(object["prices"]?["file"] == .string(Prices.repositoryFile))
        #expect(object["recorded"]?["events"] == 6)
        #expect(object["recorded"]?["lines"]?["dynamoDBWriteRequestUnit"]?["quantity"] == 21)
        #expect(object["limits"]?["lines"]?["dynamoDBWriteRequestUnit"]?["quantity"] == 15)
        #expect(object["recorded"]?["lines"]?["apiGatewayRestRequest"]?["usd"] == "0.000014")
        #expect(object["recorded"]?["lines"]?["lambdaRequest"]?["quantity"] == 7)
        #expect(object["recorded"]?["answeredCalls"] == 3)
        #expect(object["limits"]?["answeredCalls"] == 2)
        #expect(object["recorded"]?["byFunction"]?["authorizer"]?["invocations"] == 2)
        #expect(object["recorded"]?["byFunction"]?["authorizer"]?["billedMilliseconds"] == 20)

        let text = try await runEmulator(["replay", "bill", events.path])
        #expect(text.status == 0, "\(text.standardError)")
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.hasPrefix(
                "Cost: 6 events replayed in turn, recorded from 2027-01-15T08:00:00Z to 2027-01-15T08:05:00Z (5 minutes), "
                    + "priced at us-east-1 on-demand prices") == true, "\(lines)")
        // Rounded for people: a few write units cost less than a cent.
        #expect(lines.contains { $0.hasPrefix("  DynamoDB write request units") && $0.hasSuffix("21  <$0.01") })
        #expect(lines.contains("  users: 2 distinct in the recording"))
        #expect(lines.contains("  the model (--model-price USD)           3 calls  not priced"), "\(lines)")
        #expect(lines.contains { $0.contains("--model-price USD (the price of one call) adds them to the bill") })
        // A bill holds counts and dollars: no token, topic, email, client address or user id.
        for output in [text.standardOutput, json.standardOutput] {
            for secret in ["Bearer", "eyJ", "grandmother", "@example.com", "203.0.113.7", "bill-alice", "bill-bob"] {
                #expect(!output.contains(secret), "the bill shows \(secret)")
            }
        }
    }

    @Test("The bill names its period; with --model-price, its total, a month, per 1,000 monthly users, in cents")
    func periodAndModel() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try CostReportTests.recording(in: folder)
        let arguments = ["replay", "bill", folder.path, "--lambda-ms", "10", "--model-price", "0.01"]
        let json = try await runEmulator(arguments + ["--json"])
        #expect(json.status == 0, "\(json.standardError)")
        let object = try JSONParser.parse(json.standardOutput)
        #expect(object["period"]?["from"] == "2027-01-15T08:00:00Z")
        #expect(object["period"]?["to"] == "2027-01-15T08:05:00Z")
        #expect(object["period"]?["seconds"] == 300)
        #expect(object["modelPricePerCallUsd"] == "0.01")
        let recorded = try #require(object["recorded"])
        func money(_ key: String) throws -> Decimal {
            try #require(recorded[key]?.string.flatMap { Decimal(string: $0) })
        }
        // Three calls answered 200 at a cent each, on top of AWS's bill.
        #expect(recorded["modelUsd"] == "0.030000")
        let total = try money("totalUsd") + Decimal(string: "0.03")!
        #expect(try money("totalWithModelUsd") == total)
        // Five minutes of traffic: a month (30.44 days) is 8,765.82 of them; its 2 users are the month's.
        // The bill scales its exact total; the one read back here is rounded to six decimals, which
        // 8,765.82 times is at most half a cent off.
        let month = try money("perMonthUsd")
        let expected = total * 2_629_746 / 300
        #expect(abs(month - expected) < Decimal(string: "0.005")!, "\(month) vs \(expected)")
        let perThousand = try money("perThousandMonthlyActiveUsersUsd")
        #expect(abs(perThousand - month * 500) < Decimal(string: "0.001")!, "\(perThousand) vs \(month) × 500")

        let text = try await runEmulator(arguments)
        #expect(text.status == 0, "\(text.standardError)")
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        func row(_ label: String) -> String? {
            lines.first { $0.hasPrefix("  \(label)  ") }?.dropFirst(label.count + 2).trimmingCharacters(
                in: .whitespaces)
        }
        #expect(row("the model, $0.01 a call") == "3 calls  $0.03", "\(text.standardOutput)")
        #expect(row("total for the period") == total.cents, "\(text.standardOutput)")
        #expect(row("a month at this pace") == month.cents, "\(text.standardOutput)")
        #expect(row("a month per 1,000 monthly active users") == perThousand.cents, "\(text.standardOutput)")
        #expect(!text.standardOutput.contains("$0.0000"), "six decimals are for --json")

        let bad = try await runEmulator(["replay", "bill", folder.path, "--model-price", "cheap"])
        #expect(bad.status == 2)
        #expect(
            bad.standardError.contains(
                "--model-price must be US dollars a call such as 0.002, or per 1,000 tokens such as 0.0006/1k, not cheap"
            ))
        let alone = try await runEmulator(["replay", folder.path, "--model-price", "0.01"])
        #expect(alone.status == 2)
        #expect(alone.standardError.contains("Unknown option '--model-price'"), "\(alone.standardError)")
    }

    @Test("Money for people: cents, thousands separated, and under a cent said so")
    func cents() {
        #expect(Decimal(string: "1234567.891")!.cents == "$1,234,567.89")
        #expect(Decimal(string: "0.004")!.cents == "<$0.01")
        #expect(Decimal(string: "0.005")!.cents == "$0.01")
        #expect(Decimal(0).cents == "$0.00")
        #expect(Decimal(string: "-12.5")!.cents == "-$12.50")
    }

    @Test("A missing prices file stops the command (exit 2) naming it; the flags are replay bill's; --algorithm")
    func refusals() async throws {
        let missing = try await runEmulator([
            "replay", "bill", "events/free-user-limits", "--prices", "no-such-prices.json",
        ])
        #expect(missing.status == 2)
        #expect(
            missing.standardError.contains("prices file no-such-prices.json: cannot be read"),
            "\(missing.standardError)")
        let alone = try await runEmulator(["replay", "events/free-user-limits", "--cost"])
        #expect(alone.status != 0)
        #expect(alone.standardError.contains("Unknown option '--cost'"), "\(alone.standardError)")
        let sliding = try await runEmulator([
            "replay", "bill", "events/free-user-limits", "--algorithm", "sliding-window", "--json",
        ])
        #expect(sliding.status == 0, "\(sliding.standardError)")
        let estimate = try JSONParser.parse(sliding.standardOutput)["recorded"]?["algorithm"]
        #expect(estimate?["name"] == "sliding-window")
        #expect(estimate?["admittedToRefused"] == 1)
        #expect(estimate?["refusedToAdmitted"] == 1)
        #expect(estimate?["answeredCalls"] == 5)
        let zero = try await runEmulator([
            "replay", "bill", "events/free-user-limits", "--lambda-ms", "0",
        ])
        #expect(zero.standardError.contains("--lambda-ms must be from 1 to 900000"), "\(zero.standardError)")
        let sparc = try await runEmulator([
            "replay", "bill", "events/free-user-limits", "--architecture", "sparc",
        ])
        #expect(sparc.status != 0)
        #expect(
            sparc.standardError.contains("x86_64") && sparc.standardError.contains("arm64"), "\(sparc.standardError)")
        let arm = try await runEmulator([
            "replay", "bill", "events/free-user-limits", "--architecture", "arm64", "--json",
        ])
        let armLines = try JSONParser.parse(arm.standardOutput)["recorded"]?["lines"]
        #expect(
            armLines?["lambdaGBSecondArm64"] != nil && armLines?["lambdaGBSecondX86"] == nil, "\(arm.standardOutput)")
        let stray = try await runEmulator(["replay", "report", "events/free-user-limits", "--lambda-ms", "5"])
        #expect(stray.standardError.contains("Unknown option '--lambda-ms'"), "\(stray.standardError)")
    }

    /// The template's alarms and the metrics they are billed for, counted here with the tests'
    /// own reader of template.yaml.
    static func alarmMetrics() throws -> (alarms: Int, metrics: Int) {
        let alarms = try TemplateText().resources().filter { $0.lines.contains("    Type: AWS::CloudWatch::Alarm") }
        let metrics = alarms.reduce(0) { sum, alarm in
            sum + max(1, alarm.lines.filter { $0.trimmingCharacters(in: .whitespaces) == "MetricStat:" }.count)
        }
        return (alarms.count, metrics)
    }

    @Test("--users: the operator's month, its Cognito plan and fixed lines read from template.yaml")
    func operatorMonth() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = folder.appendingPathComponent("events")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        try CostReportTests.recording(in: events)
        let arguments = ["replay", "bill", events.path, "--lambda-ms", "10", "--users", "1000,20000"]
        let json = try await runEmulator(arguments + ["--json"])
        #expect(json.status == 0, "\(json.standardError)")
        let month = try #require(try JSONParser.parse(json.standardOutput)["operatorMonth"])
        #expect(month["plan"] == "LITE")
        #expect(month["users"] == [1000, 20000])
        func line(_ prefix: String, in key: String = "lines") -> JSONValue? {
            month[key]?.array?.first { $0["label"]?.string?.hasPrefix(prefix) == true }
        }
        // Lite: 10,000 users a month free, then $0.0055 each; Essentials $0.015 above 10,000; Plus
        // $0.02 each from the first (https://aws.amazon.com/cognito/pricing/).
        #expect(line("Cognito, LITE plan (template.yaml)")?["usd"] == ["0.000000", "55.000000"])
        #expect(line("Cognito at ESSENTIALS", in: "otherPlans")?["usd"] == ["0.000000", "150.000000"])
        #expect(line("Cognito at PLUS", in: "otherPlans")?["usd"] == ["20.000000", "400.000000"])
        // $0.10 for each metric an alarm fetches, whatever the users.
        let (alarms, metrics) = try Self.alarmMetrics()
        let alarmLine = try #require(line("CloudWatch alarms: "))
        #expect(alarmLine["label"] == .string("CloudWatch alarms: \(alarms), fetching \(metrics) metrics"))
        let alarmUsd = JSONValue.string(Decimal.fixed(Decimal(metrics) / 10, places: 6))
        #expect(alarmLine["usd"] == [alarmUsd, alarmUsd])
        #expect(line("Secrets Manager: 1 secret")?["usd"] == ["0.400000", "0.400000"])
        #expect(line("DynamoDB point-in-time recovery") != nil)
        #expect(line("scheduled runs (repairCharges): 8,766 a month") != nil)
        #expect(line("WAF") == nil)
        #expect(month["notes"]?.array?.contains { $0.string?.contains("The WAF is off") == true } == true)
        // The totals are the lines' sums, and grow with the users.
        let totals = try #require(month["totals"]?.array?.compactMap { $0.string.flatMap { Decimal(string: $0) } })
        let lines = try #require(month["lines"]?.array)
        for index in 0..<2 {
            let sum = lines.compactMap { $0["usd"]?.array?[index].string.flatMap { Decimal(string: $0) } }.reduce(0, +)
            #expect(abs(sum - totals[index]) < Decimal(string: "0.00001")!, "column \(index)")
        }
        #expect(totals[1] > totals[0])

        // --waf: a web ACL ($5) and its two rules ($1 each), and $0.60 a million requests.
        let waf = try await runEmulator(arguments + ["--json", "--waf"])
        let wafLine = try JSONParser.parse(waf.standardOutput)["operatorMonth"]?["lines"]?.array?.first {
            $0["label"]?.string?.hasPrefix("WAF: 1 web ACL, 2 rules") == true
        }
        let wafUsd = try #require(wafLine?["usd"]?.array?.compactMap { $0.string.flatMap { Decimal(string: $0) } })
        // The fixed $7, and requests that grow with the users (20 times as many in the second column).
        #expect(wafUsd.count == 2)
        #expect(wafUsd[0] > 7, "\(wafUsd)")
        #expect(abs((wafUsd[0] - 7) * 20 - (wafUsd[1] - 7)) < Decimal(string: "0.0001")!, "\(wafUsd)")

        // A template that names no plan is on CloudFormation's default, Essentials.
        let template = folder.appendingPathComponent("template.yaml")
        let text = try TemplateText().text.replacingOccurrences(of: "      UserPoolTier: LITE\n", with: "")
        try Data(text.utf8).write(to: template)
        let essentials = try await runEmulator(arguments + ["--json", "--template", template.path])
        #expect(try JSONParser.parse(essentials.standardOutput)["operatorMonth"]?["plan"] == "ESSENTIALS")

        // In text: the report, then the table in Markdown, which says what dominates.
        let table = try await runEmulator(arguments)
        #expect(table.status == 0, "\(table.standardError)")
        #expect(table.standardOutput.contains("| a month | 1,000 users | 20,000 users |"), "\(table.standardOutput)")
        #expect(table.standardOutput.contains("- At 20,000 users: "))

        let alone = try await runEmulator(["replay", "report", events.path, "--users", "1000"])
        #expect(alone.status == 2)
        #expect(alone.standardError.contains("Unknown option '--users'"), "\(alone.standardError)")
        let bad = try await runEmulator(["replay", "bill", events.path, "--users", "1000,ten"])
        #expect(bad.standardError.contains("--users must be monthly active users"), "\(bad.standardError)")
    }

    @Test("--model-price USD/1k prices the model per 1,000 tokens, at --model-tokens or a stated estimate")
    func modelPerThousandTokens() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try CostReportTests.recording(in: folder)
        let arguments = ["replay", "bill", folder.path, "--model-price", "0.0006/1k"]
        // Three calls answered 200: 3 × 1,000 tokens × $0.0006 per 1,000.
        let given = try await runEmulator(arguments + ["--model-tokens", "1000", "--json"])
        #expect(given.status == 0, "\(given.standardError)")
        #expect(try JSONParser.parse(given.standardOutput)["recorded"]?["modelUsd"] == "0.001800")
        // Without --model-tokens: the estimate, 600 tokens a call, said so.
        let estimated = try await runEmulator(arguments)
        #expect(estimated.standardOutput.contains("the model, $0.0006 per 1,000 tokens, 600 tokens a call (estimated)"))
        let json = try await runEmulator(arguments + ["--json"])
        #expect(try JSONParser.parse(json.standardOutput)["recorded"]?["modelUsd"] == "0.001080")
        let stray = try await runEmulator(["replay", "bill", folder.path, "--model-tokens", "5"])
        #expect(stray.status == 2)
        #expect(stray.standardError.contains("--model-tokens goes with --model-price USD/1k"), "\(stray.standardError)")
    }
}
