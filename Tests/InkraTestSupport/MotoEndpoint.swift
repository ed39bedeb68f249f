import AWSServices
import DynamoDBTable
import Foundation

/// The DynamoDB-compatible server the suites run against: the one `INKRA_TEST_DYNAMODB_ENDPOINT`
/// names (`.ci/run` starts moto_server and sets it), or else a `moto_server` from `PATH` started
/// for this test process (``MotoServer``) and stopped when it ends. With neither, those suites
/// are skipped with ``skipReason``.
package enum MotoEndpoint {
    /// The endpoint, or `nil` when there is none. Reading it first may start moto_server and wait
    /// until it answers.
    package static let url: URL? = resolved.url

    /// Why there is no endpoint, in one line, for a suite's skip reason (`.enabled(if:_:)`).
    package static var skipReason: String { resolved.reason }

    private static let resolved: (url: URL?, reason: String) = {
        let environment = ProcessInfo.processInfo.environment
        if let named = environment["INKRA_TEST_DYNAMODB_ENDPOINT"] {
            guard let url = URL(string: named), url.host != nil else {
                return (nil, "INKRA_TEST_DYNAMODB_ENDPOINT is not a URL: \(named)")
            }
            setTestCredentials()
            return (url, "")
        }
        guard let executable = MotoServer.executable() else { return (nil, MotoServer.installHint) }
        switch MotoServer.start(executable) {
        case .success(let url):
            setTestCredentials()
            FileHandle.standardError.write(Data("DynamoDB suites: started moto_server at \(url.absoluteString)\n".utf8))
            return (url, "")
        case .failure(let failure):
            return (nil, failure.description)
        }
    }()

    /// The credentials and region moto accepts, for anything that signs from the environment
    /// (as the emulator and `bootstrap` do); values already set are kept.
    private static func setTestCredentials() {
        setenv("AWS_ACCESS_KEY_ID", "testing", 0)
        setenv("AWS_SECRET_ACCESS_KEY", "testing", 0)
        setenv("AWS_REGION", "us-east-1", 0)
    }

    /// A client for it (or for a closed port when there is none), with fixed test credentials.
    package static func client(transport: any DynamoDBTransport = HTTPClientTransport()) -> DynamoDBTable {
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
