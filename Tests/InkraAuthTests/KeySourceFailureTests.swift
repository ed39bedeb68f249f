import Foundation
import HTTPText
import InkraAuth
import InkraJSON
import Synchronization
import Testing

/// An error as the runtime's and the emulator's JWKS fetchers throw for an answer other than 200.
struct HTTPStatusError: Error, CustomStringConvertible {
    let url: HTTPURL
    let status: Int
    var description: String { "\(url.absoluteString) answered HTTP \(status)" }
}

/// A refused connection, as an HTTP client reports one.
struct ConnectionRefused: Error, CustomStringConvertible {
    var description: String { "connect(2) failed: Connection refused (errno 111)" }
}

/// A flag closures can share.
final class Flag: Sendable {
    private let value: Mutex<Bool>
    init(_ value: Bool) { self.value = Mutex(value) }
    var isSet: Bool { value.withLock { $0 } }
    func set(_ newValue: Bool) { value.withLock { $0 = newValue } }
}

/// What a `RemoteKeySource` says when the pool's JWKS cannot be had, and when it can but lacks the
/// token's `kid`: the first leaves the token unchecked, the second makes it bad.
@Suite("Remote key source: cannot answer versus no such key")
struct KeySourceFailureTests {
    static let url = HTTPURL(
        string: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool/.well-known/jwks.json")!

    /// A fetch's time limit; only the timeout's own test sets a short one. The test process runs
    /// hundreds of tests on two cores, so a limit near production's 3 s can pass before a fetch
    /// that answers at once has been scheduled.
    static func source(
        timeout: Duration = .seconds(60), _ fetch: @escaping @Sendable (HTTPURL) async throws -> [UInt8]
    ) -> RemoteKeySource {
        RemoteKeySource(url: url, fetch: fetch, now: { now }, timeout: timeout)
    }

    static func keySourceError(_ source: RemoteKeySource, kid: String = "key-1") async -> AuthError? {
        do {
            _ = try await source.key(withID: kid)
            return nil
        } catch {
            return error as? AuthError
        }
    }

    @Test(
        "Unreachable, answering 503, or answering what is not a JWKS: the source cannot answer, naming the URL",
        arguments: [
            ("unreachable", AuthError.Code.jwksUnreachable, "Connection refused"),
            ("503", .jwksUnreachable, "answered HTTP 503"),
            ("html", .notJWKS, "is not valid JSON"),
            ("no keys", .notJWKS, "has no \"keys\" array"),
        ])
    func cannotAnswer(failure: String, code: AuthError.Code, detail: String) async throws {
        let source = Self.source { url in
            switch failure {
            case "unreachable": throw ConnectionRefused()
            case "503": throw HTTPStatusError(url: url, status: 503)
            case "html": return Array("<html><body>Service Unavailable</body></html>".utf8)
            default: return Array(#"{"message":"Internal server error"}"#.utf8)
            }
        }
        let error = try #require(await Self.keySourceError(source))
        #expect(error.code == code)
        #expect([.jwksUnreachable, .jwksUnreadable, .notJWKS].contains(error.code), "the source could not answer")
        #expect(error.message.contains(Self.url.absoluteString), "\(error)")
        #expect(error.message.contains(detail), "\(error)")

        let token = try testSigner.sign(payload: validClaims())
        await #expect {
            try await verifier(keys: source).verify(token)
        } throws: {
            ($0 as? AuthError)?.code == .keysUnavailable && ($0 as? AuthError)?.isKeySourceFailure == true
        }
    }

    @Test("A fetch that does not answer within the timeout is cancelled and reported as unreachable")
    func timeout() async throws {
        let cancelled = Flag(false)
        let source = Self.source(timeout: .milliseconds(50)) { _ in
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.set(error is CancellationError)
                throw error
            }
            return testSigner.jwks
        }
        let error = try #require(await Self.keySourceError(source))
        #expect(error.code == .jwksUnreachable)
        #expect(error.message == "\(Self.url.absoluteString) did not answer within \(Duration.milliseconds(50))")
        #expect(cancelled.isSet)
    }

    @Test("A kid missing from a freshly fetched JWKS is a bad token (unknownKey), not a key-source failure")
    func unknownKid() async throws {
        let source = Self.source { _ in testSigner.jwks }
        let token = try testSigner.sign(payload: validClaims(), header: ["kid": "rotated-away"])
        await #expect {
            try await verifier(keys: source).verify(token)
        } throws: {
            ($0 as? AuthError)?.code == .unknownKey && ($0 as? AuthError)?.isKeySourceFailure == false
        }
        #expect(await source.fetchCount == 1)
    }

    @Test("After an outage the next token fetches again; a key already held keeps verifying during one")
    func outageAndRecovery() async throws {
        let failing = Flag(true)
        let source = Self.source { url in
            if failing.isSet { throw HTTPStatusError(url: url, status: 503) }
            return testSigner.jwks
        }
        let token = try testSigner.sign(payload: validClaims())
        await #expect { try await verifier(keys: source).verify(token) } throws: {
            ($0 as? AuthError)?.isKeySourceFailure == true
        }
        failing.set(false)
        #expect(try await verifier(keys: source).verify(token).subject == "user-1")
        failing.set(true)
        #expect(try await verifier(keys: source).verify(token).subject == "user-1")
        #expect(await source.fetchCount == 2)
    }
}
