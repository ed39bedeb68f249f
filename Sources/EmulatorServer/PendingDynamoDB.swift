import EmulatorKit
import SingleTable

// Scaffolding until the DynamoDB endpoint lands; deleted then.
public struct LocalDynamoDB: Sendable {
    init(table: InMemoryTable) {}
    static func requestTooLarge() -> LocalHTTPResponse { LocalHTTPResponse(status: 413) }
    func respond(_ request: LocalHTTPRequest) async -> LocalHTTPResponse { LocalHTTPResponse(status: 501) }
}
