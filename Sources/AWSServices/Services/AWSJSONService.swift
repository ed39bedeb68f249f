import InkraJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One call to an AWS service's JSON protocol (`POST /`, `X-Amz-Target`, SigV4), for what the
/// runtime reads once at start: an SSM parameter (the tier limits) and a Secrets Manager secret
/// (the model's API key). It shares the table client's signer and transport.
package struct AWSJSONService: Sendable {
    /// The service's endpoint.
    package let endpoint: URL
    let signer: SigV4Signer
    let targetPrefix: String
    let transport: any DynamoDBTransport
    let now: @Sendable () -> Date

    /// SSM (`AmazonSSM.*`), at `AWS_ENDPOINT_URL_SSM`, else `AWS_ENDPOINT_URL`, else AWS's.
    /// - Throws: ``DynamoDBConfigurationError`` naming a missing variable.
    package static func ssm(
        _ aws: AWSSettings, transport: any DynamoDBTransport = HTTPClientTransport(),
        now: @escaping @Sendable () -> Date
    ) throws(DynamoDBConfigurationError) -> AWSJSONService {
        try service(.ssm, target: "AmazonSSM", aws, transport: transport, now: now)
    }

    /// Secrets Manager (`secretsmanager.*`), at `AWS_ENDPOINT_URL_SECRETS_MANAGER`, else
    /// `AWS_ENDPOINT_URL`, else AWS's.
    /// - Throws: ``DynamoDBConfigurationError`` naming a missing variable.
    package static func secretsManager(
        _ aws: AWSSettings, transport: any DynamoDBTransport = HTTPClientTransport(),
        now: @escaping @Sendable () -> Date
    ) throws(DynamoDBConfigurationError) -> AWSJSONService {
        try service(.secretsManager, target: "secretsmanager", aws, transport: transport, now: now)
    }

    /// Cognito user pools (`AWSCognitoIdentityProviderService.*`, signed as `cognito-idp`), at
    /// `AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER`, else `AWS_ENDPOINT_URL`, else AWS's.
    /// - Parameters:
    ///   - aws: the region, credentials and endpoints.
    ///   - region: the region to call instead of the settings' (a pool's own).
    ///   - transport: what sends the signed requests.
    ///   - now: the clock the requests are signed at.
    /// - Throws: ``DynamoDBConfigurationError`` naming a missing variable.
    package static func cognitoIdentityProvider(
        _ aws: AWSSettings, region: String? = nil, transport: any DynamoDBTransport = HTTPClientTransport(),
        now: @escaping @Sendable () -> Date
    ) throws(DynamoDBConfigurationError) -> AWSJSONService {
        try service(
            .cognitoIdentityProvider, target: "AWSCognitoIdentityProviderService", aws, region: region,
            transport: transport, now: now)
    }

    private static func service(
        _ service: AWSSettings.Service, target: String, _ aws: AWSSettings, region: String? = nil,
        transport: any DynamoDBTransport, now: @escaping @Sendable () -> Date
    ) throws(DynamoDBConfigurationError) -> AWSJSONService {
        let client = try aws.client(for: service, region: region)
        return AWSJSONService(
            endpoint: client.endpoint,
            signer: SigV4Signer(credentials: client.credentials, region: client.region, service: service.name),
            targetPrefix: target, transport: transport, now: now)
    }

    /// Calls `operation` with a JSON body and returns the answer's JSON.
    /// - Throws: ``AWSServiceError`` with the service's error type and message.
    package func call(_ operation: String, _ body: JSONValue, timeout: TimeInterval = 5) async throws -> JSONValue {
        let bytes = body.jsonBytes
        let headers = [
            ("Content-Type", "application/x-amz-json-1.1"), ("X-Amz-Target", "\(targetPrefix).\(operation)"),
        ]
        let signed = signer.sign(method: "POST", url: endpoint, headers: headers, body: bytes, date: now())
        let request = DynamoDBHTTPRequest(
            operation: operation, url: endpoint, headers: headers + signed.headers, body: bytes, timeout: timeout)
        let response: DynamoDBHTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw AWSServiceError(
                type: "RequestFailed", message: "\(operation) to \(endpoint.absoluteString): \(error)")
        }
        let json = (try? JSONParser.parse(response.body)) ?? .null
        guard response.status == 200 else {
            let type = (json["__type"]?.string ?? "HTTP \(response.status)").split(separator: "#").last.map(String.init)
            throw AWSServiceError(
                type: type ?? "HTTP \(response.status)",
                message: json["message"]?.string ?? json["Message"]?.string ?? "")
        }
        return json
    }

    /// An SSM parameter's value (`GetParameter`, decrypted when it is a SecureString).
    package func parameter(named name: String) async throws -> String {
        let answer = try await call("GetParameter", ["Name": .string(name), "WithDecryption": true])
        guard let value = answer["Parameter"]?["Value"]?.string else {
            throw AWSServiceError(type: "MalformedAnswer", message: "GetParameter answered no Parameter.Value")
        }
        return value
    }

    /// A secret's `SecretString` (`GetSecretValue`).
    package func secretString(id: String) async throws -> String {
        let answer = try await call("GetSecretValue", ["SecretId": .string(id)])
        guard let value = answer["SecretString"]?.string else {
            throw AWSServiceError(type: "MalformedAnswer", message: "the secret has no SecretString")
        }
        return value
    }
}

/// An AWS service's error answer: its type (`ParameterNotFound`) and message.
package struct AWSServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error type, without its namespace.
    package var type: String
    /// The service's message.
    package var message: String

    /// Creates an error.
    package init(type: String, message: String) {
        self.type = type
        self.message = message
    }

    package var description: String { message.isEmpty ? type : "\(type): \(message)" }
}
