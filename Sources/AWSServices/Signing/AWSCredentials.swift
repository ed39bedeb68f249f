/// AWS credentials, as Lambda provides them in the environment.
public struct AWSCredentials: Sendable, Hashable {
    /// `AWS_ACCESS_KEY_ID`.
    public var accessKeyID: String
    /// `AWS_SECRET_ACCESS_KEY`.
    public var secretAccessKey: String
    /// `AWS_SESSION_TOKEN`, for temporary credentials (always present on Lambda).
    public var sessionToken: String?

    /// Creates credentials.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}
