import HTTPText

/// Where and as whom to call AWS services, as a value: the region, the credentials, and the
/// endpoints (a service's own, else one for every service, else AWS's
/// `https://<service>.<region>.<suffix>`, the suffix the region's partition's: `amazonaws.com`,
/// `amazonaws.com.cn` in the China Regions; `AWSPartition`).
///
/// The clients (`DynamoDBTable`, the JSON services, Cognito administration) take it and never
/// read the environment; ``init(environment:)`` is the one place its variables are read, called
/// where a program reads its settings (`bootstrap`'s configuration, the emulator's commands).
package struct AWSSettings: Sendable, Hashable {
    /// A service the package calls: its endpoint's host prefix (also its signing name) and its own
    /// endpoint variable.
    package struct Service: Sendable, Hashable, CustomStringConvertible {
        /// The endpoint's host prefix and SigV4 service name: `dynamodb`, `ssm`.
        package let name: String
        /// The service's own endpoint variable, `AWS_ENDPOINT_URL_DYNAMODB`.
        package let endpointVariable: String
        /// Its name in messages, `DynamoDB`.
        package let title: String

        package var description: String { title }

        /// DynamoDB.
        package static let dynamoDB = Service(
            name: "dynamodb", endpointVariable: "AWS_ENDPOINT_URL_DYNAMODB", title: "DynamoDB")
        /// SSM Parameter Store.
        package static let ssm = Service(name: "ssm", endpointVariable: "AWS_ENDPOINT_URL_SSM", title: "SSM")
        /// Secrets Manager.
        package static let secretsManager = Service(
            name: "secretsmanager", endpointVariable: "AWS_ENDPOINT_URL_SECRETS_MANAGER", title: "Secrets Manager")
        /// Cognito user pools.
        package static let cognitoIdentityProvider = Service(
            name: "cognito-idp", endpointVariable: "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER",
            title: "Cognito user pools")
        /// Every service the package calls.
        package static let all = [dynamoDB, ssm, secretsManager, cognitoIdentityProvider]
    }

    /// `AWS_REGION` (else `AWS_DEFAULT_REGION`).
    package var region: String?
    /// `AWS_ACCESS_KEY_ID`.
    package var accessKeyID: String?
    /// `AWS_SECRET_ACCESS_KEY`.
    package var secretAccessKey: String?
    /// `AWS_SESSION_TOKEN`.
    package var sessionToken: String?
    /// `AWS_ENDPOINT_URL`: every service's endpoint unless the service has its own.
    package var endpoint: HTTPURL?
    /// Each service's own endpoint (`AWS_ENDPOINT_URL_SSM`, …).
    package var serviceEndpoints: [Service: HTTPURL]

    /// Creates settings.
    package init(
        region: String? = nil, accessKeyID: String? = nil, secretAccessKey: String? = nil,
        sessionToken: String? = nil, endpoint: HTTPURL? = nil, serviceEndpoints: [Service: HTTPURL] = [:]
    ) {
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.endpoint = endpoint
        self.serviceEndpoints = serviceEndpoints
    }

    /// Reads the settings from an environment as Lambda and the AWS SDKs set it; a value that is
    /// empty or only spaces and tabs is unset. Nothing is required here: what a client lacks is
    /// reported when it is made.
    /// - Throws: ``AWSServiceError/invalidConfiguration`` naming an endpoint variable that is not an http or
    ///   https URL.
    package init(environment: [String: String]) throws(AWSServiceError) {
        func value(_ key: String) -> String? {
            guard let raw = environment[key]?.trimmingSpacesAndTabs(), !raw.isEmpty else { return nil }
            return String(raw)
        }
        func url(_ variable: String) throws(AWSServiceError) -> HTTPURL? {
            guard let text = value(variable) else { return nil }
            guard let url = HTTPURL(string: text), url.scheme == "http" || url.scheme == "https" else {
                throw .configuration(variable: variable, "must be an http or https URL, got \"\(text)\"")
            }
            return url
        }
        var serviceEndpoints: [Service: HTTPURL] = [:]
        for service in Service.all {
            serviceEndpoints[service] = try url(service.endpointVariable)
        }
        self.init(
            region: value("AWS_REGION") ?? value("AWS_DEFAULT_REGION"), accessKeyID: value("AWS_ACCESS_KEY_ID"),
            secretAccessKey: value("AWS_SECRET_ACCESS_KEY"), sessionToken: value("AWS_SESSION_TOKEN"),
            endpoint: try url("AWS_ENDPOINT_URL"), serviceEndpoints: serviceEndpoints)
    }

    /// The region, credentials and endpoint one service is called with.
    /// - Parameters:
    ///   - service: the service called.
    ///   - region: the region to use instead of ``region`` (a Cognito pool's own).
    /// - Throws: ``AWSServiceError/invalidConfiguration`` naming the variable that is missing.
    package func client(for service: Service, region: String? = nil) throws(AWSServiceError) -> (
        region: String, credentials: AWSCredentials, endpoint: HTTPURL
    ) {
        guard let region = region ?? self.region else {
            throw .configuration(variable: "AWS_REGION", "is required to reach \(service)")
        }
        guard let accessKeyID else {
            throw .configuration(
                variable: "AWS_ACCESS_KEY_ID", "is required to sign \(service) requests")
        }
        guard let secretAccessKey else {
            throw .configuration(
                variable: "AWS_SECRET_ACCESS_KEY", "is required to sign \(service) requests")
        }
        let endpoint =
            serviceEndpoints[service] ?? endpoint
            ?? HTTPURL(string: "https://\(AWSPartition.host(service.name, region: region))")!
        return (
            region,
            AWSCredentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, sessionToken: sessionToken),
            endpoint
        )
    }
}
