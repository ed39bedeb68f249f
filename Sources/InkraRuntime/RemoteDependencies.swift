import AWSServices
import DynamoDBTable
import HTTPText
import InkraHandlers
import InkraTime
import OutboundHTTP

/// Fetches a user pool's JWKS over HTTPS.
enum HTTPSFetch {
    @Sendable static func get(_ url: HTTPURL) async throws -> [UInt8] {
        let response = try await OutboundHTTPClient.shared.execute(
            OutboundRequest(url: url), timeout: .seconds(3), maximumResponseBytes: 1024 * 1024)
        guard response.status == 200 else {
            throw ConfigurationError(.unreadable, "JWKS", "\(url.absoluteString) answered HTTP \(response.status)")
        }
        return response.body
    }
}

/// The DynamoDB table of `INKRA_STORE=dynamodb`.
enum DynamoDBStore {
    static func table(
        _ configuration: Configuration, clock: @escaping @Sendable () -> Timestamp
    ) throws -> DynamoDBTable {
        do {
            return try DynamoDBTable.client(configuration.aws, now: clock)
        } catch {
            throw ConfigurationError(.invalid, "INKRA_STORE=dynamodb", "\(error)")
        }
    }
}

/// The Cognito user pool whose users `deleteAccount` deletes.
struct CognitoUserDirectory: UserDirectory, RequestBound {
    let admin: CognitoUserAdmin

    func bound(to scope: RequestScope) -> CognitoUserDirectory { CognitoUserDirectory(admin: admin.bound(to: scope)) }

    static func fromConfiguration(
        _ configuration: Configuration, clock: @escaping @Sendable () -> Timestamp
    ) throws -> CognitoUserDirectory? {
        guard let pool = try configuration.accountPool() else { return nil }
        do {
            return CognitoUserDirectory(
                admin: try CognitoUserAdmin(userPoolID: pool, aws: configuration.aws, now: clock))
        } catch {
            throw ConfigurationError(.invalid, "INKRA_DELETE_COGNITO_USER", "\(error)")
        }
    }

    func deleteUser(_ userID: String) async throws -> Bool {
        try await admin.deleteUser(userID)
    }
}
