import HTTPText
import InkraJSON
import InkraTime
import InkraTracing
import Synchronization

/// Where verification keys come from.
package protocol KeySource: Sendable {
    /// The key with this id, or `nil` when the source does not have it (the token is then bad).
    /// - Throws: when the source cannot answer (a failed or timed-out fetch, a document that is not
    ///   a JWKS): the token cannot be checked. ``AuthError`` with ``AuthError/Code/unusableKey``
    ///   when the source has the key but it cannot verify anything.
    /// - Parameters:
    ///   - kid: the key's id.
    ///   - scope: the request the key is wanted for: a fetch it causes is a span of its trace.
    func key(withID kid: String, in scope: RequestScope) async throws -> VerificationKey?
}

extension KeySource {
    /// The key with this id, for no request in particular (a fetch it causes is traced nowhere).
    package func key(withID kid: String) async throws -> VerificationKey? {
        try await key(withID: kid, in: RequestScope())
    }
}

/// Keys from a JWKS document held in memory or read from a file once.
package final class JWKSKeySource: KeySource {
    private let entries: [String: JWKEntry]
    private let built = Mutex<[String: VerificationKey]>([:])

    /// Keys from a JWKS document.
    /// - Throws: ``AuthError`` when it is not a JWKS.
    package init(jwks: [UInt8]) throws {
        entries = Dictionary(try JWKEntry.parse(jwks, source: "JWKS").map { ($0.kid, $0) }) { first, _ in first }
    }

    /// Keys from a JWKS file.
    /// - Throws: ``AuthError`` naming the file when it cannot be read or is not a JWKS.
    package init(contentsOfFile path: String) throws {
        let data: [UInt8]
        do {
            data = try FileBytes.read(atPath: path)
        } catch {
            throw AuthError(.jwksUnreadable, "JWKS file \(path) cannot be read: \(error.reason)")
        }
        entries = Dictionary(try JWKEntry.parse(data, source: "JWKS file \(path)").map { ($0.kid, $0) }) { a, _ in a
        }
    }

    /// The ids of the usable keys.
    package var keyIDs: [String] { entries.keys.sorted() }

    package func key(withID kid: String, in scope: RequestScope) async throws -> VerificationKey? {
        if let key = built.withLock({ $0[kid] }) { return key }
        guard let entry = entries[kid] else { return nil }
        let key = try entry.makeKey()
        built.withLock { $0[kid] = key }
        return key
    }
}

/// A user pool's JWKS fetched over HTTPS and kept for the life of the process. An unknown `kid`
/// triggers one refetch (keys rotate); if it is still unknown, unknown `kid`s fail without
/// fetching for `penalty` seconds, so a flood of forged tokens cannot turn into a flood of fetches.
///
/// A fetch that fails, takes longer than `timeout`, or brings back something that is not a JWKS
/// throws ``AuthError`` (``AuthError/Code/jwksUnreachable`` or ``AuthError/Code/notJWKS``):
/// the source could not answer, so the token is not known to be bad. A `kid` missing from a JWKS
/// that was fetched is answered `nil`: that token is bad.
package actor RemoteKeySource: KeySource {
    private let url: HTTPURL
    private let fetch: @Sendable (HTTPURL) async throws -> [UInt8]
    private let now: @Sendable () -> Timestamp
    private let penalty: Double
    private let timeout: Duration
    private var entries: [String: JWKEntry] = [:]
    private var keys: [String: VerificationKey] = [:]
    private var loaded = false
    private var quietUntil: Timestamp?
    private var inFlight: Task<[String: JWKEntry], any Error>?
    /// How many times the JWKS was fetched.
    package private(set) var fetchCount = 0

    /// A source for a JWKS URL.
    /// - Parameters:
    ///   - url: the JWKS URL.
    ///   - fetch: fetches a URL's body (HTTPS in production, a stub in tests).
    ///   - now: the clock for the refetch penalty.
    ///   - penalty: seconds during which unknown `kid`s do not refetch.
    ///   - timeout: how long a fetch may take. The default, 3 seconds, is under the authorizer's
    ///     5-second Lambda timeout (template.yaml), so a JWKS that hangs is reported by the function
    ///     (its error, metric and log line) rather than cut off by Lambda.
    package init(
        url: HTTPURL,
        fetch: @escaping @Sendable (HTTPURL) async throws -> [UInt8],
        now: @escaping @Sendable () -> Timestamp,
        penalty: Double = 10,
        timeout: Duration = .seconds(3)
    ) {
        self.url = url
        self.fetch = fetch
        self.now = now
        self.penalty = penalty
        self.timeout = timeout
    }

    package func key(withID kid: String, in scope: RequestScope) async throws -> VerificationKey? {
        if let key = keys[kid] { return key }
        if !loaded {
            try await refresh(in: scope)
        } else if entries[kid] == nil {
            if let quietUntil, now() < quietUntil { return nil }
            try await refresh(in: scope)
            if entries[kid] == nil {
                quietUntil = now().addingTimeInterval(penalty)
                return nil
            }
        }
        guard let entry = entries[kid] else {
            quietUntil = now().addingTimeInterval(penalty)
            return nil
        }
        let key = try entry.makeKey()
        keys[kid] = key
        return key
    }

    /// Fetches the JWKS, as a span of the trace of the request that asked first; concurrent
    /// callers share one fetch.
    private func refresh(in scope: RequestScope) async throws {
        if let inFlight {
            entries = try await inFlight.value
            return
        }
        let url = self.url
        let fetch = self.fetch
        let timeout = self.timeout
        fetchCount += 1
        let task = Task { () async throws -> [String: JWKEntry] in
            // A span of the request's trace: the pool's public URL, the time.
            let data = try await scope.span("JWKS", namespace: .remote) {
                (span, _) async throws(AuthError) -> [UInt8] in
                span.method = "GET"
                span.url = TraceSpan.plainURL(url.absoluteString)
                return try await Self.fetch(url, with: fetch, within: timeout)
            }
            let parsed = try JWKEntry.parse(data, source: url.absoluteString)
            return Dictionary(parsed.map { ($0.kid, $0) }) { first, _ in first }
        }
        inFlight = task
        defer { inFlight = nil }
        let fetched = try await task.value
        entries = fetched
        keys = keys.filter { fetched[$0.key] != nil }
        loaded = true
    }

    /// The JWKS's bytes, or ``AuthError/Code/jwksUnreachable`` naming the URL when the fetch fails
    /// or has not answered within `timeout` (`withDeadline`: the fetch is then cancelled, and left
    /// behind if it does not stop).
    private static func fetch(
        _ url: HTTPURL, with fetch: @escaping @Sendable (HTTPURL) async throws -> [UInt8], within timeout: Duration
    ) async throws(AuthError) -> [UInt8] {
        do {
            return try await withDeadline(.now.advanced(by: timeout)) { try await fetch(url) }
        } catch is DeadlinePassed {
            throw AuthError(.jwksUnreachable, "\(url.absoluteString) did not answer within \(timeout)")
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.jwksUnreachable, "cannot fetch \(url.absoluteString): \(error)")
        }
    }
}
