import Foundation
import HTTPText
import InkraJSON
import InkraTime
import LocalUserPool
import NIOHTTP1
import OutboundHTTP

/// Signs a test user in to a Cognito user pool with `USER_SRP_AUTH`, the flow the template's app
/// client allows (and the only one), for `replay endpoint`: `InitiateAuth` with `SRP_A`, then
/// `RespondToAuthChallenge` to the `PASSWORD_VERIFIER` challenge (``SRPClient``). Both operations
/// are unsigned, as Cognito serves them to apps; the answer's `IdToken` is what the API's
/// authorizer reads.
package struct CognitoSignIn: Sendable {
    /// The pool's endpoint: `https://cognito-idp.REGION.amazonaws.com/`, or a local pool's.
    package var endpoint: HTTPURL
    /// The pool's id, `REGION_NAME`.
    package var poolID: String
    /// The app client's id.
    package var clientID: String
    /// The HTTP client.
    package var client = OutboundHTTPClient.shared
    /// How long each of the two calls may take.
    package var timeout: Duration = .seconds(30)
    /// The instant of the claim, for its `TIMESTAMP`.
    package var now: @Sendable () -> Timestamp

    /// A sign-in to a pool through one of its app clients.
    /// - Parameter now: the clock of the SRP claim's `TIMESTAMP`, given by the command.
    package init(endpoint: HTTPURL, poolID: String, clientID: String, now: @escaping @Sendable () -> Timestamp) {
        self.endpoint = endpoint
        self.poolID = poolID
        self.clientID = clientID
        self.now = now
    }

    /// Cognito's public endpoint for the region a pool id begins with (`us-east-1_…`), in that
    /// region's partition (`AWSPartition`).
    package static func endpoint(forPoolID poolID: String) -> HTTPURL? {
        guard let underscore = poolID.firstIndex(of: "_"), underscore != poolID.startIndex else { return nil }
        return HTTPURL(string: "https://\(AWSPartition.host("cognito-idp", region: String(poolID[..<underscore])))/")
    }

    /// Signs `username` in and returns the id token.
    /// - Throws: ``EmulatorError`` naming the step and Cognito's error type and message; never the
    ///   password.
    package func idToken(username: String, password: String) async throws(EmulatorError) -> String {
        var generator = SystemRandomNumberGenerator()
        let srp = SRPClient(poolID: poolID, using: &generator)
        let started = try await call(
            "InitiateAuth",
            [
                "AuthFlow": "USER_SRP_AUTH", "ClientId": .string(clientID),
                "AuthParameters": ["USERNAME": .string(username), "SRP_A": .string(srp.clientPublicHex)],
            ])
        guard started["ChallengeName"]?.string == "PASSWORD_VERIFIER",
            let parameters = started["ChallengeParameters"]?.object
        else {
            throw EmulatorError(
                "InitiateAuth answered no PASSWORD_VERIFIER challenge (ChallengeName "
                    + "\(started["ChallengeName"]?.jsonString ?? "missing")); is \(clientID) an app client with USER_SRP_AUTH?"
            )
        }
        var challenge: [String: String] = [:]
        for (name, value) in parameters.pairs { challenge[name] = value.string }
        let responses: [String: String]
        do {
            responses = try srp.responses(to: challenge, password: password, at: now())
        } catch {
            throw EmulatorError("cannot answer the PASSWORD_VERIFIER challenge: \(error)")
        }
        var request: JSONValue = [
            "ChallengeName": "PASSWORD_VERIFIER", "ClientId": .string(clientID),
            "ChallengeResponses": .object(
                .init(responses.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
        ]
        if let session = started["Session"]?.string { request.set(.string(session), at: ["Session"]) }
        let answered = try await call("RespondToAuthChallenge", request)
        if let next = answered["ChallengeName"]?.string {
            throw EmulatorError(
                "the pool asks for another challenge, \(next), after the password (a new password, MFA): "
                    + "sign the user in once by hand to settle it")
        }
        guard let token = answered["AuthenticationResult"]?["IdToken"]?.string else {
            throw EmulatorError("RespondToAuthChallenge answered no AuthenticationResult.IdToken")
        }
        return token
    }

    /// One operation of the Cognito Identity Provider API: its answer, or its error as an ``EmulatorError``.
    private func call(_ operation: String, _ input: JSONValue) async throws(EmulatorError) -> JSONValue {
        let request = OutboundRequest(
            method: .POST, url: endpoint,
            headers: [
                ("Content-Type", "application/x-amz-json-1.1"),
                ("X-Amz-Target", "AWSCognitoIdentityProviderService.\(operation)"),
            ], body: input.jsonBytes)
        let response: OutboundResponse
        do {
            response = try await client.execute(request, timeout: timeout, maximumResponseBytes: 1 << 20)
        } catch {
            throw EmulatorError("cannot reach the user pool at \(endpoint.absoluteString): \(error)")
        }
        let answer = try? JSONParser.parse(response.body)
        guard response.status == 200, let answer else {
            let type = answer?["__type"]?.string.map { $0.split(separator: "#").last.map(String.init) ?? $0 }
            let message = answer?["message"]?.string ?? answer?["Message"]?.string
            throw EmulatorError(
                "\(operation) at \(endpoint.absoluteString) answered \(response.status)"
                    + (type.map { ": \($0)" } ?? "") + (message.map { ": \(Self.printable($0))" } ?? ""))
        }
        return answer
    }

    /// A message from the pool as one printable line of at most 200 characters.
    private static func printable(_ text: String) -> String {
        String(
            text.prefix(200).map {
                $0.isASCII && ($0.isLetter || $0.isNumber || $0.isPunctuation || $0 == " ") ? $0 : "?"
            })
    }
}
