import Foundation
import InkraTime
import Testing

@testable import InkraRuntime

/// The runtime's settings fail closed inside Lambda: nothing that decides metering is defaulted to
/// a local choice there, and a setting it does not know (a typo) stops start-up.
@Suite("Configuration: fail closed inside Lambda")
struct ConfigurationTests {
    static let lambda = ["AWS_LAMBDA_FUNCTION_NAME": "generateQuestions"]

    @Test("Inside Lambda, a missing INKRA_STORE stops start-up, naming it and why")
    func storeRequiredInLambda() {
        do {
            _ = try Configuration(environment: Self.lambda)
            Issue.record("a function without INKRA_STORE started")
        } catch {
            #expect(error.setting == "INKRA_STORE")
            #expect(error.reason.contains("must be set inside Lambda"))
        }
    }

    @Test("Outside Lambda, the store is the in-memory table unless told otherwise")
    func memoryOutsideLambda() throws {
        #expect(try Configuration(environment: [:]).store == .memory)
        #expect(try Configuration(environment: [:]).insideLambda == false)
        var environment = Self.lambda
        environment["INKRA_STORE"] = "dynamodb"
        #expect(try Configuration(environment: environment).store == .dynamodb)
        environment["INKRA_STORE"] = "memory"
        #expect(try Configuration(environment: environment).store == .memory, "chosen explicitly, memory is allowed")
    }

    @Test("Inside Lambda, an unknown INKRA_ setting stops start-up naming it; outside, it is ignored")
    func unknownSetting() throws {
        var environment = Self.lambda
        environment["INKRA_STORE"] = "dynamodb"
        environment["INKRA_TABLE"] = "typo-for-the-table-name"
        do {
            _ = try Configuration(environment: environment)
            Issue.record("a misspelt setting was ignored inside Lambda")
        } catch {
            #expect(error.setting == "INKRA_TABLE")
            #expect(error.reason.contains("INKRA_TABLE_NAME"), "the message lists the known settings")
        }
        #expect(throws: Never.self) { try Configuration(environment: ["INKRA_TABLE": "x"]) }
    }

    @Test("The request's deadline is the earlier of Lambda's and the gateway's timeout, less a second")
    func requestDeadline() throws {
        let start = Timestamp(timeIntervalSince1970: 1_000)
        let configuration = try Configuration(environment: [:])
        #expect(configuration.gatewayTimeout == 29)
        #expect(
            configuration.requestDeadline(lambdaDeadline: start.addingTimeInterval(900), start: start)
                == start.addingTimeInterval(28))
        #expect(
            configuration.requestDeadline(lambdaDeadline: start.addingTimeInterval(10), start: start)
                == start.addingTimeInterval(9))
        let shorter = try Configuration(environment: ["INKRA_GATEWAY_TIMEOUT": "5"])
        #expect(
            shorter.requestDeadline(lambdaDeadline: start.addingTimeInterval(900), start: start)
                == start.addingTimeInterval(4))
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["INKRA_GATEWAY_TIMEOUT": "1"]) }
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["INKRA_GATEWAY_TIMEOUT": "x"]) }
    }

    @Test("The gateway's timeout counts from API Gateway's receive time when it is a live request's")
    func deadlineFromGateway() throws {
        let start = Timestamp(timeIntervalSince1970: 10_000)
        let lambda = start.addingTimeInterval(32)
        let configuration = try Configuration(environment: [:])
        func deadline(receivedAgo seconds: TimeInterval?) -> Timestamp {
            configuration.requestDeadline(
                lambdaDeadline: lambda, start: start, gatewayStart: seconds.map { start.addingTimeInterval(-$0) })
        }
        // A cold start's 5 s of init were API Gateway's too: 23 s are left, less the margin.
        #expect(deadline(receivedAgo: 5) == start.addingTimeInterval(23))
        #expect(deadline(receivedAgo: nil) == start.addingTimeInterval(28))
        // A clock ahead of ours, or a recorded event (sam local generate-event writes 2015).
        #expect(deadline(receivedAgo: -3) == start.addingTimeInterval(28))
        #expect(deadline(receivedAgo: 901) == start.addingTimeInterval(28))
        // Past it already: nothing is left for work.
        #expect(deadline(receivedAgo: 60) == start.addingTimeInterval(-32))
    }

    @Test("Clean-up gets 2 s past the work's deadline, ending a quarter second before Lambda's")
    func cleanupDeadline() throws {
        let start = Timestamp(timeIntervalSince1970: 10_000)
        let configuration = try Configuration(environment: [:])
        let work = start.addingTimeInterval(28)
        #expect(
            configuration.cleanupDeadline(work: work, lambdaDeadline: start.addingTimeInterval(32))
                == start.addingTimeInterval(30))
        #expect(
            configuration.cleanupDeadline(work: work, lambdaDeadline: start.addingTimeInterval(29))
                == start.addingTimeInterval(28.75))
        #expect(
            configuration.cleanupDeadline(work: work, lambdaDeadline: start.addingTimeInterval(28))
                == work)
    }
}
