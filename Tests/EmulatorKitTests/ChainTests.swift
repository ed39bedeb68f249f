import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import SingleTable
import Testing

@Suite("The API Gateway chain")
struct ChainTests {
    static let when = Timestamp(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    func token(_ sub: String, tier: String? = nil, groups: [String]? = nil, at time: Timestamp = when) throws -> String
    {
        try DevelopmentTokens.mint(
            with: Repository.developmentKey, claims: .init(sub: sub, tier: tier, groups: groups), at: time)
    }

    /// A stack's chain with a fresh 300 s authorizer cache, and a token for `sub`.
    func cachingChain(sub: String) async throws -> (chain: GatewayChain, cache: AuthorizerCache, token: String) {
        let stack = try await EmulatorStack(options: Repository.options())
        let cache = AuthorizerCache(timeToLive: 300, now: { Self.when })
        return (stack.gateway.caching(in: cache), cache, try token(sub))
    }

    /// Runs one event through a chain at the suite's instant.
    func invoke(_ chain: GatewayChain, _ function: FunctionName, _ event: JSONValue) async -> Invocation {
        await chain.invoke(function, event: event, at: Self.when)
    }

    @Test("v1 and v2 events with only an Authorization header reach generateQuestions with the token's identity")
    func chain() async throws {
        let stack = try await EmulatorStack(options: Repository.options())
        for (kind, user) in [(SampleEvents.Kind.restGenerate, "rest-user"), (.httpGenerate, "http-user")] {
            let event = SampleEvents.event(kind, token: try token(user, tier: "premium"), at: Self.when)
            let result = await Replayer(stack: stack).replay(event: event, function: .generateQuestions)
            #expect(result.statusCode == 200)
            #expect(result.authorizer != nil)
            let body = try JSONParser.parse(result.json["body"]?.string ?? "")
            #expect(body["usage"]?["limit"] == 999_999)
            let items = try await stack.store.usage(for: user, at: Self.when, limits: .premium)
            #expect(items.monthly.used == 1)
        }
    }

    @Test("REST context is injected as strings beside principalId; HTTP API context under lambda")
    func injection() async throws {
        let stack = try await EmulatorStack(options: Repository.options())
        let rest = SampleEvents.event(.restUsage, token: try token("ctx"), at: Self.when)
        let result = await Replayer(stack: stack).replay(event: rest, function: .checkUsage)
        let step = try #require(result.authorizer)
        #expect(step.event?["type"] == "TOKEN")
        #expect(step.event?["methodArn"] == "arn:aws:execute-api:us-east-1:123456789012:inkra0local/prod/GET/usage")
        #expect(result.statusCode == 200)
    }

    @Test("A cached answer sends the authorizer no event, and is checked against each request's own resource")
    func cachedAnswer() async throws {
        let (chain, cache, token) = try await cachingChain(sub: "cached")
        let first = await invoke(chain, .checkUsage, SampleEvents.event(.restUsage, token: token, at: Self.when))
        let sent = try #require(first.authorizer)
        #expect(sent.cached == false)
        #expect(sent.event?["methodArn"] == "arn:aws:execute-api:us-east-1:123456789012:inkra0local/prod/GET/usage")
        let second = await invoke(
            chain, .generateQuestions, SampleEvents.event(.restGenerate, token: token, at: Self.when))
        let reused = try #require(second.authorizer)
        #expect(reused.cached == true)
        #expect(reused.event == nil)
        guard case .success(let answer) = second.outcome else {
            Issue.record("generateQuestions failed: \(second.outcome)")
            return
        }
        #expect(answer["statusCode"] == 200)
        #expect(cache.hits == 1 && cache.misses == 1)
    }

    @Test(
        "A cached answer is decided per resource: another stage is refused, the first allowed; another API's is its own"
    )
    func cachedDecisions() async throws {
        let (chain, cache, token) = try await cachingChain(sub: "staged")
        func invoke(_ kind: SampleEvents.Kind, stage: String?) async -> Invocation {
            var event = SampleEvents.event(kind, token: token, at: Self.when)
            if let stage { event.set(.string(stage), at: ["requestContext", "stage"]) }
            return await self.invoke(chain, .checkUsage, event)
        }
        // REST answers as template.yaml's gateway responses make it; an HTTP API as API Gateway does.
        func message(_ invocation: Invocation) -> String? {
            let body = invocation.json["body"]?.string.flatMap { try? JSONParser.parse($0) }
            return (body?["error"] ?? body?["message"])?.string
        }
        // The first request runs the authorizer, whose policy allows the whole `prod` stage.
        #expect(await invoke(.restUsage, stage: nil).statusCode == 200)
        let otherStage = await invoke(.restUsage, stage: "dev")
        #expect(otherStage.statusCode == 403)
        #expect(message(otherStage) == "User is not authorized to access this resource")
        #expect(await invoke(.restUsage, stage: nil).statusCode == 200)
        // An HTTP API event with the same token is another API's authorizer, whose cache is its own
        // (authorizerResultTtlInSeconds is a property of each API's authorizer:
        // https://docs.aws.amazon.com/apigateway/latest/api/API_Authorizer.html): the REST answer
        // does not serve it, and the authorizer runs for its own route.
        let http = await invoke(.httpUsage, stage: "dev")
        #expect(http.statusCode == 200)
        #expect(http.authorizer?.cached == false)
        #expect(cache.misses == 2 && cache.hits == 2)
        // Its answer is then cached for that API: a second HTTP API request is served from it.
        let httpAgain = await invoke(.httpUsage, stage: "dev")
        #expect(httpAgain.authorizer?.cached == true)
        #expect(message(httpAgain) == nil && httpAgain.statusCode == 200)
    }

    @Test("The region in the authorizer's ARN comes from an execute-api domain name; us-east-1 otherwise")
    func region() async throws {
        let stack = try await EmulatorStack(options: Repository.options())
        for (domain, region) in [
            ("abc123.execute-api.eu-west-1.amazonaws.com", "eu-west-1"), ("localhost:3000", "us-east-1"),
            ("execute-api", "us-east-1"), ("a.execute-api.", "us-east-1"), ("a.b.c", "us-east-1"),
            ("x.execute-api..ap-south-1.example.com", "ap-south-1"),
            ("id.execute-api.us-west-2.amazonaws.com:443", "us-west-2"),
            ("id.EXECUTE-API.eu-north-1.amazonaws.com", "us-east-1"), ("execute-api.sa-east-1", "sa-east-1"),
        ] {
            var event = SampleEvents.event(.restUsage, token: try token("regional"), at: Self.when)
            event.set(.string(domain), at: ["requestContext", "domainName"])
            let result = await invoke(stack.gateway, .checkUsage, event)
            let arn = try #require(result.authorizer?.event?["methodArn"]?.string)
            #expect(arn == "arn:aws:execute-api:\(region):123456789012:inkra0local/prod/GET/usage")
            #expect(result.statusCode == 200)
        }
    }

    @Test("A bad token stops at 401 and consumes nothing; a blocked user gets 403")
    func refusals() async throws {
        let stack = try await EmulatorStack(options: Repository.options())
        let replayer = Replayer(stack: stack)
        let bad = SampleEvents.event(.restGenerate, token: "not.a.token", at: Self.when)
        let refused = await replayer.replay(event: bad, function: .generateQuestions)
        #expect(refused.statusCode == 401)
        #expect(refused.json["body"] == #"{"error":"Unauthorized","code":"unauthorized"}"#)
        #expect(stack.memoryTable?.snapshot().isEmpty == true)

        let missing = SampleEvents.event(.httpGenerate, token: nil, at: Self.when)
        #expect(await replayer.replay(event: missing, function: .generateQuestions).statusCode == 401)

        let blocked = SampleEvents.event(.restGenerate, token: try token("b", groups: ["blocked"]), at: Self.when)
        let denied = await replayer.replay(event: blocked, function: .generateQuestions)
        #expect(denied.statusCode == 403)
        #expect(
            denied.json["body"] == #"{"error":"User is not authorized to access this resource","code":"access_denied"}"#
        )
        let blockedV2 = SampleEvents.event(.httpGenerate, token: try token("b", groups: ["blocked"]), at: Self.when)
        let forbidden = await replayer.replay(event: blockedV2, function: .generateQuestions)
        #expect(forbidden.statusCode == 403)
        #expect(stack.memoryTable?.snapshot().isEmpty == true)
    }

    @Test("Recorded time: a token that expired since recording replays as recorded, and fails with --now")
    func recordedTime() async throws {
        let recorded = Timestamp(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14
        let event = SampleEvents.event(.restUsage, token: try token("old", at: recorded), at: recorded)
        let asRecorded = try await EmulatorStack(options: Repository.options())
        #expect(await Replayer(stack: asRecorded).replay(event: event, function: .checkUsage).statusCode == 200)
        let today = try await EmulatorStack(options: Repository.options(now: Timestamp.now))
        #expect(await Replayer(stack: today).replay(event: event, function: .checkUsage).statusCode == 401)
    }

    @Test("--state: usage accumulates across two replays")
    func stateAccumulates() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let state = scratch.appendingPathComponent("state.json")
        let event = SampleEvents.event(.restGenerate, token: try token("persistent", tier: "premium"), at: Self.when)
        for run in 1...2 {
            let stack = try await EmulatorStack(options: Repository.options(state: state))
            let result = await Replayer(stack: stack).replay(event: event, function: .generateQuestions)
            let body = try JSONParser.parse(result.json["body"]?.string ?? "")
            #expect(body["usage"]?["used"] == .number(run))
            try stack.saveState()
        }
        let items = try StateFile(url: state, tableName: "inkra-usage").load()
        #expect(items.count == 3)
    }

    @Test("A corrupt or foreign state file is refused and left as it was")
    func corruptState() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(String, String)] = [
            ("{ torn", "is not an inkra-emulator state file"),
            (
                #"{"format":"something-else","version":1,"table":"inkra-usage","items":[]}"#,
                "has format \"something-else\""
            ),
            (#"{"format":"inkra-emulator-state","version":9,"table":"inkra-usage","items":[]}"#, "is version 9"),
            (#"{"format":"inkra-emulator-state","version":1,"table":"other","items":[]}"#, "holds table \"other\""),
            (
                #"{"format":"inkra-emulator-state","version":1,"table":"inkra-usage","items":[{"PK":{"Q":"x"}}]}"#,
                "is corrupt"
            ),
        ]
        for (index, (contents, message)) in cases.enumerated() {
            let file = folder.appendingPathComponent("state-\(index).json")
            try Data(contents.utf8).write(to: file)
            await #expect {
                try await EmulatorStack(options: Repository.options(state: file))
            } throws: { error in
                let text = String(describing: error)
                return text.contains(message) && text.contains(file.path) && text.contains("refusing")
            }
            #expect(try String(contentsOf: file, encoding: .utf8) == contents)
        }
    }
}
