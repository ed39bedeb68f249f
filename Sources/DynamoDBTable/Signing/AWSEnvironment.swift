#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where and as whom to call an AWS service, read from the environment as Lambda and the AWS SDKs
/// set it: the region, the credentials, and the endpoint (a service's own variable, else
/// `AWS_ENDPOINT_URL`, else AWS's `https://<service>.<region>.amazonaws.com`).
struct AWSEnvironment {
    var region: String
    var credentials: AWSCredentials
    var endpoint: URL

    /// - Parameters:
    ///   - service: the endpoint's host prefix (`dynamodb`, `ssm`, `secretsmanager`).
    ///   - name: the service's name in messages (`DynamoDB`).
    ///   - endpointVariable: the service's own endpoint variable (`AWS_ENDPOINT_URL_DYNAMODB`).
    /// - Throws: ``DynamoDBConfigurationError`` naming the missing or malformed variable.
    init(_ environment: [String: String], service: String, name: String, endpointVariable: String) throws {
        func value(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        guard let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") else {
            throw DynamoDBConfigurationError("AWS_REGION is required to reach \(name)")
        }
        guard let accessKey = value("AWS_ACCESS_KEY_ID") else {
            throw DynamoDBConfigurationError("AWS_ACCESS_KEY_ID is required to sign \(name) requests")
        }
        guard let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw DynamoDBConfigurationError("AWS_SECRET_ACCESS_KEY is required to sign \(name) requests")
        }
        var endpoint = URL(string: "https://\(service).\(region).amazonaws.com")!
        for variable in [endpointVariable, "AWS_ENDPOINT_URL"] {
            guard let text = value(variable) else { continue }
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw DynamoDBConfigurationError("\(variable) must be an http or https URL, got \"\(text)\"")
            }
            endpoint = url
            break
        }
        self.region = region
        credentials = AWSCredentials(
            accessKeyID: accessKey, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        self.endpoint = endpoint
    }
}
