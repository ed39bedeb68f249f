/// AWS credentials, as Lambda provides them in the environment.
package struct AWSCredentials: Sendable, Hashable {
    /// `AWS_ACCESS_KEY_ID`.
    package var accessKeyID: String
    /// `AWS_SECRET_ACCESS_KEY`.
    package var secretAccessKey: String
    /// `AWS_SESSION_TOKEN`, for temporary credentials (always present on Lambda).
    package var sessionToken: String?

    /// Creates credentials.
    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}
