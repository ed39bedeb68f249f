import AWSServices
import DynamoDBTable
import Foundation
import HTTPText
import InkraTime

/// The DynamoDB-compatible server the suites run against: the one `INKRA_TEST_DYNAMODB_ENDPOINT`
/// names (`.ci/run` starts moto_server and sets it), or else a `moto_server` from `PATH` started
/// for this test process (``MotoServer``) and stopped when it ends. With neither, those suites
/// are skipped with ``skipReason``.
///
/// Whether there is one is told without starting anything (``isAvailable``, for `.enabled(if:)`,
/// which Swift Testing evaluates on its cooperative threads); the start, which waits until
/// moto_server answers, happens on a thread of its own the first time a test awaits ``url()``.
package enum MotoEndpoint {
    /// Whether the suites have a server: one named, or moto_server on PATH to start.
    package static var isAvailable: Bool { configuration.source != nil }

    /// Why there is no endpoint, in one line, for a suite's skip reason (`.enabled(if:_:)`).
    package static var skipReason: String { configuration.reason }

    /// Where the endpoint comes from.
    private enum Source {
        case named(HTTPURL)
        case started(URL)
    }

    private static let configuration: (source: Source?, reason: String) = {
        if let named = ProcessInfo.processInfo.environment["INKRA_TEST_DYNAMODB_ENDPOINT"] {
            guard let url = HTTPURL(string: named) else {
                return (nil, "INKRA_TEST_DYNAMODB_ENDPOINT is not a URL: \(named)")
            }
            return (.named(url), "")
        }
        guard let executable = MotoServer.executable() else { return (nil, MotoServer.installHint) }
        return (.started(executable), "")
    }()

    /// The endpoint. The first call may start moto_server and wait, off Swift's cooperative
    /// threads, until it answers.
    /// - Throws: when there is none (``skipReason``) or moto_server could not be started.
    package static func url() async throws -> HTTPURL {
        try await resolved.value.get()
    }

    private static let resolved = Task<Result<HTTPURL, MotoServer.StartFailure>, Never> {
        switch configuration.source {
        case nil:
            return .failure(MotoServer.StartFailure(configuration.reason))
        case .named(let url):
            setTestCredentials()
            return .success(url)
        case .started(let executable):
            let started = await start(executable)
            if case .success(let url) = started {
                FileHandle.standardError.write(
                    Data("DynamoDB suites: started moto_server at \(url.absoluteString)\n".utf8))
            }
            return started
        }
    }

    /// Starts a moto_server on a thread of its own (the start waits until it answers), and sets
    /// the test credentials once it does.
    private static func start(_ executable: URL) async -> Result<HTTPURL, MotoServer.StartFailure> {
        let started = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: MotoServer.start(executable)) }
        }
        if case .success = started { setTestCredentials() }
        return started
    }

    /// A moto_server of this test process's own, for the few tests whose subject has a real-time
    /// budget against it: `bootstrap`'s start-up reads (the limits parameter, a secret) must answer
    /// within 5 s, and the shared server queues a whole parallel run's requests (``patient`` says
    /// why) for longer than that on a loaded machine. Few requests reach this one. Without
    /// moto_server on PATH (a named endpoint only), the shared server.
    package static func quietURL() async throws -> HTTPURL {
        try await quiet.value.get()
    }

    private static let quiet = Task<Result<HTTPURL, MotoServer.StartFailure>, Never> {
        guard let executable = MotoServer.executable() else { return await resolved.value }
        return await start(executable)
    }

    /// The credentials and region moto accepts, for anything that signs from the environment
    /// (as the emulator and `bootstrap` do); values already set are kept.
    private static func setTestCredentials() {
        setenv("AWS_ACCESS_KEY_ID", "testing", 0)
        setenv("AWS_SECRET_ACCESS_KEY", "testing", 0)
        setenv("AWS_REGION", "us-east-1", 0)
    }

    /// A client for it, with fixed test credentials.
    package static func client(transport: any DynamoDBTransport = HTTPClientTransport()) async throws -> DynamoDBTable {
        DynamoDBTable(
            endpoint: try await url(),
            region: "us-east-1",
            credentials: AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing"),
            transport: transport,
            options: patient,
            now: { Timestamp.now }
        )
    }

    /// moto answers one request at a time, and a whole parallel test run queues on it. An attempt
    /// that times out is retried, and a retried UpdateItem applies twice (as on DynamoDB, where only
    /// transactions carry a request token), so the suites wait rather than retry.
    static var patient: DynamoDBTable.Options {
        var options = DynamoDBTable.Options()
        options.requestTimeout = Patience.seconds
        options.deadline = 2 * Patience.seconds
        return options
    }
}
