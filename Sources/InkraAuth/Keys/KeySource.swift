import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where verification keys come from.
public protocol KeySource: Sendable {
    /// The key with this id, or `nil` when the source does not have it.
    /// - Throws: when the source cannot be read (a failed fetch).
    func key(withID kid: String) async throws -> VerificationKey?
}

/// Keys from a JWKS document held in memory or read from a file once.
public final class JWKSKeySource: KeySource {
    private let entries: [String: JWKEntry]
    private let built = Mutex<[String: VerificationKey]>([:])

    /// Keys from a JWKS document.
    /// - Throws: ``KeySourceError`` when it is not a JWKS.
    public init(jwks: Data) throws {
        entries = Dictionary(try JWKEntry.parse(jwks, source: "JWKS").map { ($0.kid, $0) }) { first, _ in first }
    }

    /// Keys from a JWKS file.
    /// - Throws: ``KeySourceError`` naming the file when it cannot be read or is not a JWKS.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw KeySourceError("JWKS file \(url.path) cannot be read: \(error)")
        }
        entries = Dictionary(try JWKEntry.parse(data, source: "JWKS file \(url.path)").map { ($0.kid, $0) }) { a, _ in a
        }
    }

    /// The ids of the usable keys.
    public var keyIDs: [String] { entries.keys.sorted() }

    public func key(withID kid: String) async throws -> VerificationKey? {
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
public actor RemoteKeySource: KeySource {
    private let url: URL
    private let fetch: @Sendable (URL) async throws -> Data
    private let now: @Sendable () -> Date
    private let penalty: TimeInterval
    private var entries: [String: JWKEntry] = [:]
    private var keys: [String: VerificationKey] = [:]
    private var loaded = false
    private var quietUntil: Date?
    private var inFlight: Task<[String: JWKEntry], any Error>?
    /// How many times the JWKS was fetched.
    public private(set) var fetchCount = 0

    /// A source for a JWKS URL.
    /// - Parameters:
    ///   - url: the JWKS URL.
    ///   - fetch: fetches a URL's body (HTTPS in production, a stub in tests).
    ///   - now: the clock for the refetch penalty.
    ///   - penalty: seconds during which unknown `kid`s do not refetch.
    public init(
        url: URL,
        fetch: @escaping @Sendable (URL) async throws -> Data,
        now: @escaping @Sendable () -> Date,
        penalty: TimeInterval = 10
    ) {
        self.url = url
        self.fetch = fetch
        self.now = now
        self.penalty = penalty
    }

    public func key(withID kid: String) async throws -> VerificationKey? {
        if let key = keys[kid] { return key }
        if !loaded {
            try await refresh()
        } else if entries[kid] == nil {
            if let quietUntil, now() < quietUntil { return nil }
            try await refresh()
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

    /// Fetches the JWKS; concurrent callers share one fetch.
    private func refresh() async throws {
        if let inFlight {
            entries = try await inFlight.value
            return
        }
        let url = self.url
        let fetch = self.fetch
        fetchCount += 1
        let task = Task { () async throws -> [String: JWKEntry] in
            let data: Data
            do {
                data = try await fetch(url)
            } catch {
                throw KeySourceError("cannot fetch \(url.absoluteString): \(error)")
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
}
