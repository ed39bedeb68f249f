import AsyncHTTPClient
import DynamoDBTable
import InkraHandlers
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Fetches a user pool's JWKS over HTTPS.
enum HTTPSFetch {
    @Sendable static func get(_ url: URL) async throws -> Data {
        let request = HTTPClientRequest(url: url.absoluteString)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        guard response.status == .ok else {
            throw ConfigurationError("JWKS", "\(url.absoluteString) answered HTTP \(response.status.code)")
        }
        return Data(Array(buffer: try await response.body.collect(upTo: 1024 * 1024)))
    }
}

/// The DynamoDB table of `INKRA_STORE=dynamodb`.
enum DynamoDBStore {
    static func table(
        _ configuration: Configuration, _ environment: [String: String], clock: @escaping @Sendable () -> Date
    ) throws -> DynamoDBTable {
        do {
            return try DynamoDBTable.fromEnvironment(environment, now: clock)
        } catch {
            throw ConfigurationError("INKRA_STORE=dynamodb", "\(error)")
        }
    }
}
