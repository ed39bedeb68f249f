import Foundation
import InkraHandlers
import InkraJSON

extension ImportWriter {
    /// What `--with-tokens` wrote.
    package struct TokensOutcome: Sendable, Hashable {
        /// Users with recorded claims.
        package var users = 0
        /// Authorizer recordings whose claims were written.
        package var entries = 0
        /// Authorizer events written, one per recording with claims.
        package var events = 0
    }

    /// The resource an imported authorizer event names: the recording keeps no method or path,
    /// and the authorizer's policy covers its whole stage anyway.
    static let importedMethodArn = "arn:aws:execute-api:us-east-1:123456789012:imported/prod/GET/imported"
    /// HTTP API's form of ``importedMethodArn``.
    static let importedRouteArn = "arn:aws:execute-api:us-east-1:123456789012:imported/$default/GET/imported"

    /// `import --with-tokens`: writes `.inkra-tokens.json` (``RecordedTokens``) with the claims of every
    /// authorizer recording that holds them, and for each such recording an authorizer event
    /// (`authorizer/<recorded time>-<request id>.json`, a REST `TOKEN` event, or an HTTP API
    /// payload 2.0 event when the recorded answer was a simple response) naming the recording
    /// under `x-inkra-recorded-token`, with the recorded answer as its expectation: `replay` signs
    /// the token into it and checks that the authorizer answers as it did.
    /// - Throws: ``EmulatorError`` naming the file that cannot be written.
    package func writeTokens(_ recordings: [Recording]) throws(EmulatorError) -> TokensOutcome {
        var tokens = RecordedTokens()
        var outcome = TokensOutcome()
        for recording in recordings where recording.function == "authorizer" {
            guard let user = tokens.add(recording, pseudonymizer: pseudonymizer) else { continue }
            let simple = recording.error == nil && recording.decision?["principalId"] == nil
            var event: JSONValue
            if simple {
                event = [
                    "version": "2.0", "type": "REQUEST", "routeArn": .string(Self.importedRouteArn),
                    "identitySource": [], "routeKey": "GET /imported", "rawPath": "/imported", "headers": [:],
                ]
            } else {
                event = ["type": "TOKEN", "methodArn": .string(Self.importedMethodArn)]
            }
            event.set(
                ["user": .string(user), "requestId": .string(recording.requestID)],
                at: [RecordedTokenSigner.recordedTokenField])
            try write(
                event: event, function: "authorizer", requestID: recording.requestID,
                epochMilliseconds: Int(recording.epochMilliseconds), expectation: authorizerExpectation(recording))
            outcome.events += 1
        }
        outcome.users = tokens.users.count
        outcome.entries = tokens.count
        try tokens.write(into: directory)
        return outcome
    }

    /// The recorded authorizer answer as an expectation: the error, or the principal, the effect
    /// and the context members the recording kept (pseudonymized as the events are).
    func authorizerExpectation(_ recording: Recording) -> JSONValue {
        let recorded: JSONValue = [
            "requestId": .string(recording.requestID), "refusal": recording.refusal.map(JSONValue.string) ?? .null,
        ]
        if let error = recording.error { return ["error": error, "recorded": recorded] }
        var decision = recording.decision ?? [:]
        if let pseudonymizer { decision = pseudonymizer.context(decision) }
        var context = JSONObject()
        for (name, value) in decision["context"]?.object?.pairs ?? [] where value.object == nil {
            if value.string != RecordingRedaction.marker { context[name] = value }
        }
        let allowed = decision["effect"]?.string == "Allow"
        var response = JSONObject()
        if let principal = decision["principalId"] {
            response["principalId"] = principal
            response["policyDocument"] = ["Statement": [["Effect": .string(allowed ? "Allow" : "Deny")]]]
            if !context.isEmpty { response["context"] = .object(context) }
        } else {
            response["isAuthorized"] = .bool(allowed)
            if allowed, !context.isEmpty { response["context"] = .object(context) }
        }
        return ["response": .object(response), "recorded": recorded]
    }
}
