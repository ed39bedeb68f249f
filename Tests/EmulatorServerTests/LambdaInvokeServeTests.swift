import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers
import InkraJSON
import InkraUsage
import NIOHTTP1
import SingleTable
import Testing

@Suite("serve: the Lambda Invoke API over HTTP")
struct LambdaInvokeServeTests {
    static func invocations(_ function: String) -> String { "/2015-03-31/functions/\(function)/invocations" }

    static func usageEvent(_ user: String) throws -> [UInt8] {
        let event = SampleEvents.event(.restUsage, token: nil, at: ServeFixture.when)
            .setting(
                ["principalId": .string(user), "sub": .string(user), "tier": "free"],
                at: ["requestContext", "authorizer"])
        return event.jsonBytes
    }

    @Test("RequestResponse: 200 with the function's response, $LATEST, a request id")
    func requestResponse() async throws {
        try await ServeFixture.run { served in
            let answer = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations("checkUsage"), body: try Self.usageEvent("u1"))
            #expect(answer.status == 200)
            #expect(answer.header("X-Amz-Executed-Version") == "$LATEST")
            #expect(answer.header("X-Amz-Function-Error") == nil)
            #expect(answer.header("x-amzn-RequestId") != nil)
            let response = try answer.json
            #expect(response["statusCode"] == 200)
            #expect(try JSONParser.parse(response["body"]?.string ?? "")["used"] == 0)
        }
    }

    @Test("A function error: 200 with X-Amz-Function-Error: Unhandled and Lambda's error object")
    func functionError() async throws {
        try await ServeFixture.run { served in
            let event: JSONValue = [
                "type": "TOKEN", "authorizationToken": "Bearer nope",
                "methodArn": "arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/usage",
            ]
            let answer = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations("authorizer"), body: event.jsonBytes)
            #expect(answer.status == 200)
            #expect(answer.header("X-Amz-Function-Error") == "Unhandled")
            #expect(try answer.json == ["errorMessage": "Unauthorized", "errorType": "Unauthorized"])
        }
    }

    @Test("Unknown function: 404 ResourceNotFoundException naming its ARN; a version other than $LATEST too")
    func unknownFunction() async throws {
        try await ServeFixture.run { served in
            let answer = try await served.send(.POST, served.endpoints.lambda, path: Self.invocations("sendEmail"))
            #expect(answer.status == 404)
            #expect(answer.header("x-amzn-ErrorType") == "ResourceNotFoundException")
            #expect(
                try answer.json["message"]
                    == "Function not found: arn:aws:lambda:us-east-1:123456789012:function:sendEmail")
            let versioned = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations("checkUsage") + "?Qualifier=7")
            #expect(versioned.status == 404)
            let arn = "arn%3Aaws%3Alambda%3Aus-east-1%3A123456789012%3Afunction%3AcheckUsage"
            let byARN = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations(arn), body: try Self.usageEvent("arn-user"))
            #expect(byARN.status == 200)
        }
    }

    @Test("A payload that is not JSON: 400 InvalidRequestContentException, nothing run")
    func badPayload() async throws {
        try await ServeFixture.run { served in
            let answer = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations("generateQuestions"),
                body: Array("{not json".utf8))
            #expect(answer.status == 400)
            #expect(answer.header("x-amzn-ErrorType") == "InvalidRequestContentException")
            #expect(served.stack.memoryTable?.snapshot().isEmpty == true)
        }
    }

    @Test("Event: 202 at once, the function runs after; DryRun: 204, nothing runs")
    func eventAndDryRun() async throws {
        try await ServeFixture.run { served in
            let token = try ServeFixture.token("event-user")
            let event = SampleEvents.event(.restGenerate, token: token, at: ServeFixture.when)
                .setting(
                    ["principalId": "event-user", "sub": "event-user", "tier": "free"],
                    at: ["requestContext", "authorizer"])
            let dryRun = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations("generateQuestions"),
                headers: [("X-Amz-Invocation-Type", "DryRun")], body: event.jsonBytes)
            #expect(dryRun.status == 204)
            #expect(served.stack.memoryTable?.snapshot().isEmpty == true)
            let queued = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations("generateQuestions"),
                headers: [("X-Amz-Invocation-Type", "Event")], body: event.jsonBytes)
            #expect(queued.status == 202)
            #expect(queued.body.isEmpty)
            await served.server.lambda.finishEventInvocations()
            let usage = try await served.stack.store.usage(for: "event-user", at: ServeFixture.when, limits: .free)
            #expect(usage.monthly.used == 1)
            let unknownType = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations("checkUsage"),
                headers: [("X-Amz-Invocation-Type", "Later")], body: event.jsonBytes)
            #expect(unknownType.status == 400)
            #expect(unknownType.header("x-amzn-ErrorType") == "InvalidParameterValueException")
        }
    }

    @Test("X-Amz-Log-Type: Tail returns the invocation's log, base64, with START, the function's lines, END, REPORT")
    func logTail() async throws {
        try await ServeFixture.run { served in
            let event: JSONValue = [
                "type": "TOKEN", "authorizationToken": "Bearer not-a-jwt",
                "methodArn": "arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/usage",
            ]
            let answer = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations("authorizer"),
                headers: [("X-Amz-Log-Type", "Tail")], body: event.jsonBytes)
            let encoded = try #require(answer.header("X-Amz-Log-Result"))
            let log = String(decoding: try #require(Data(base64Encoded: encoded)), as: UTF8.self)
            let requestID = try #require(answer.header("x-amzn-RequestId"))
            #expect(log.hasPrefix("START RequestId: \(requestID) Version: $LATEST\n"))
            #expect(log.contains("\t\(requestID)\tINFO\t"))
            #expect(log.contains("END RequestId: \(requestID)\n"))
            #expect(log.contains("REPORT RequestId: \(requestID)\tDuration: "))
            let plain = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations("authorizer"), body: event.jsonBytes)
            #expect(plain.header("X-Amz-Log-Result") == nil)
        }
    }

    @Test("A payload over 6 MB: 413 RequestTooLargeException")
    func tooLarge() async throws {
        try await ServeFixture.run { served in
            let big = Array(repeating: UInt8(ascii: " "), count: LocalLambda.payloadLimit + 1)
            let answer = try await served.send(
                .POST, served.endpoints.lambda, path: Self.invocations("checkUsage"), body: big)
            #expect(answer.status == 413)
            #expect(answer.header("x-amzn-ErrorType") == "RequestTooLargeException")
        }
    }
}
