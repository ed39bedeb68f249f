import DynamoDBTable
import Foundation

/// The DynamoDB-compatible server the suites run against, named by `INKRA_TEST_DYNAMODB_ENDPOINT`
/// (`.ci/run` starts moto_server and sets it); without it those suites say they were skipped.
public enum MotoEndpoint {
    public static let url = ProcessInfo.processInfo.environment["INKRA_TEST_DYNAMODB_ENDPOINT"].flatMap(
        URL.init(string:))

    /// A client for it (or for a closed port when none is set), with fixed test credentials.
    public static func client(transport: any DynamoDBTransport = HTTPClientTransport()) -> DynamoDBTable {
        DynamoDBTable(
            endpoint: url ?? URL(string: "http://127.0.0.1:1")!,
            region: "us-east-1",
            credentials: AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing"),
            transport: transport,
            options: patient,
            now: { Date() }
        )
    }

    /// moto answers one request at a time, and a whole parallel test run queues on it. An attempt
    /// that times out is retried, and a retried UpdateItem applies twice (as on DynamoDB, where only
    /// transactions carry a request token), so the suites wait rather than retry.
    static var patient: DynamoDBTable.Options {
        var options = DynamoDBTable.Options()
        options.requestTimeout = 60
        options.deadline = 120
        return options
    }
}
