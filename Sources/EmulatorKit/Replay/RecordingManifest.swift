import Foundation
import InkraAuth
import InkraJSON

/// What a recording's tokens were checked against when `serve --record` answered them, kept in
/// the recording's folder as `.inkra-recording.json` (hidden, so `replay` does not take it for an
/// event), so that `replay` trusts what `serve` trusted: the issuers (the development tokens', the
/// local user pool's `http://HOST:PORT/us-east-1_InkraLocal`), their app clients and token use,
/// and their public keys; and the authorizer cache's time to live.
///
/// It holds public keys only (a key's private members are dropped before writing) and never a
/// token:
///
/// ```json
/// {"recordedBy": "inkra-emulator serve", "authorizerCacheTtl": 300,
///  "issuers": [{"issuer": "http://127.0.0.1:9229/us-east-1_InkraLocal", "clientIds": ["inkra-local-client"],
///               "tokenUse": "id", "jwks": {"keys": [{"kty": "RSA", "kid": "…", "n": "…", "e": "AQAB"}]}}]}
/// ```
package struct RecordingManifest: Sendable, Hashable {
    /// The manifest's file name in a recording's folder.
    package static let fileName = ".inkra-recording.json"

    /// One issuer a recording's tokens were checked against.
    package struct Issuer: Sendable, Hashable {
        /// Its issuer, app clients, token use and clock tolerance.
        package var configuration: CognitoConfiguration
        /// Its public keys, as a JWKS.
        package var jwks: JSONValue
    }

    /// The issuers `serve` trusted, by issuer.
    package var issuers: [Issuer] = []
    /// The authorizer cache's time to live `serve` ran with (0: off).
    package var authorizerCacheTTL: TimeInterval = AuthorizerCache.templateTimeToLive

    /// An empty manifest.
    package init() {}

    /// What a stack trusts now: its own issuer (with the development key's JWKS, or its `--jwks`
    /// file's) and every pool it trusts besides (``TrustedPools``), checked against the same keys.
    /// A stack that fetches a pool's keys over the network has no keys to write: its own issuer is
    /// then left out.
    package init(trustOf stack: EmulatorStack, authorizerCacheTTL: TimeInterval) {
        self.authorizerCacheTTL = authorizerCacheTTL
        let options = stack.options
        let keys: JSONValue?
        if let file = options.jwksFile {
            keys = (try? Data(contentsOf: file)).flatMap { try? JSONParser.parse(Array($0)) }
        } else if options.trustsDevelopmentKey, let key = options.developmentKey {
            keys = try? JSONParser.parse(Array(key.jwks))
        } else {
            keys = nil
        }
        guard let keys else { return }
        let jwks = Self.publicKeys(of: keys)
        var configurations = stack.trustedPools.configurations
        if let own = try? options.cognitoConfiguration() { configurations.insert(own, at: 0) }
        issuers = configurations.map { Issuer(configuration: $0, jwks: jwks) }
    }

    /// The manifest as written.
    package var json: JSONValue {
        let issuers: [JSONValue] = issuers.map { issuer in
            let configuration = issuer.configuration
            return [
                "issuer": .string(configuration.issuer),
                "clientIds": .array(configuration.clientIds.map(JSONValue.string)),
                "tokenUse": .string(configuration.tokenUse.rawValue),
                "clockSkew": Self.seconds(configuration.clockTolerance),
                "jwks": issuer.jwks,
            ]
        }
        return [
            "recordedBy": "inkra-emulator serve",
            "authorizerCacheTtl": Self.seconds(authorizerCacheTTL),
            "issuers": .array(issuers),
        ]
    }

    /// Seconds as a JSON number, without a fraction when whole (`300`, not `300.0`).
    private static func seconds(_ value: TimeInterval) -> JSONValue {
        .number(value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value))
    }

    /// Reads a manifest's JSON.
    /// - Throws: ``EmulatorError`` naming the member that is wrong.
    package init(json: JSONValue) throws(EmulatorError) {
        guard json.object != nil else { throw EmulatorError("must be a JSON object, not \(json.typeName)") }
        if let ttl = json["authorizerCacheTtl"] {
            guard let seconds = ttl.double, (0...3600).contains(seconds) else {
                throw EmulatorError("authorizerCacheTtl must be a number of seconds from 0 to 3600")
            }
            authorizerCacheTTL = seconds
        }
        for (index, entry) in (json["issuers"]?.array ?? []).enumerated() {
            guard let issuer = entry["issuer"]?.string, !issuer.isEmpty else {
                throw EmulatorError("issuers[\(index)].issuer must be a string")
            }
            guard let jwks = entry["jwks"], jwks["keys"]?.array != nil else {
                throw EmulatorError("issuers[\(index)].jwks must be a JWKS ({\"keys\": […]})")
            }
            let use = entry["tokenUse"]?.string ?? TokenUse.id.rawValue
            guard let tokenUse = TokenUse(rawValue: use) else {
                throw EmulatorError("issuers[\(index)].tokenUse must be id, access or any, not \"\(use)\"")
            }
            let configuration = CognitoConfiguration(
                issuer: issuer, clientIds: (entry["clientIds"]?.array ?? []).compactMap(\.string), tokenUse: tokenUse,
                clockTolerance: entry["clockSkew"]?.double ?? 0)
            issuers.append(Issuer(configuration: configuration, jwks: Self.publicKeys(of: jwks)))
        }
    }

    /// The manifest in a folder, `nil` when it has none.
    /// - Throws: ``EmulatorError`` naming the file when it cannot be read or is malformed.
    package static func read(in folder: URL) throws(EmulatorError) -> RecordingManifest? {
        let url = folder.appendingPathComponent(fileName)
        guard let json = try Replayer.readJSON(url, named: url.path) else { return nil }
        do {
            return try RecordingManifest(json: json)
        } catch {
            throw EmulatorError("\(url.path): \(error.message)")
        }
    }

    /// The manifests of the folders replayed (a file's own folder for a file), merged: every
    /// issuer any of them trusted, and the first one's cache time to live. `nil` when none has one.
    /// - Throws: ``EmulatorError`` naming a manifest that cannot be read.
    package static func read(for paths: [URL]) throws(EmulatorError) -> RecordingManifest? {
        var merged: RecordingManifest?
        var seen = Set<String>()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else { continue }
            let folder = isDirectory.boolValue ? path : path.deletingLastPathComponent()
            guard seen.insert(folder.standardizedFileURL.path).inserted, let manifest = try read(in: folder) else {
                continue
            }
            if merged == nil {
                merged = manifest
            } else {
                merged?.merge(manifest)
            }
        }
        return merged
    }

    /// Adds another manifest's issuers that this one lacks.
    package mutating func merge(_ other: RecordingManifest) {
        let known = Set(issuers.map(\.configuration.issuer))
        issuers += other.issuers.filter { !known.contains($0.configuration.issuer) }
    }

    /// Makes a stack trust every issuer of the manifest besides its own (its own stays as its
    /// options say), each with the manifest's keys.
    /// - Throws: ``EmulatorError`` naming an issuer whose JWKS holds no usable key.
    package func trust(in stack: EmulatorStack) throws(EmulatorError) {
        let own = try stack.options.cognitoConfiguration().issuer
        for issuer in issuers where issuer.configuration.issuer != own {
            do {
                let keys = try JWKSKeySource(jwks: Array(issuer.jwks.jsonBytes))
                stack.trustedPools.trust(issuer.configuration, keys: keys)
            } catch {
                throw EmulatorError("\(Self.fileName): the keys of \(issuer.configuration.issuer): \(error)")
            }
        }
    }

    /// Writes the manifest into a folder, merged with the one already there (a second session
    /// recorded into the same folder adds its issuers: its pool may listen on another port).
    /// - Throws: ``EmulatorError`` naming the file.
    package func write(into folder: URL) throws(EmulatorError) {
        var manifest = self
        if let existing = try? Self.read(in: folder) { manifest.merge(existing) }
        try Replayer.write(manifest.json.prettyJSONString + "\n", to: folder.appendingPathComponent(Self.fileName))
    }

    /// The JSON Web Key members that are public (RFC 7517, RFC 7518 §6): a private key's `d`, `p`,
    /// `q`, `dp`, `dq`, `qi`, `oth` and a symmetric key's `k` are never written.
    static let publicMembers: Set<String> = ["kty", "kid", "alg", "use", "key_ops", "n", "e", "crv", "x", "y"]

    /// A JWKS with only the public members of its keys.
    static func publicKeys(of jwks: JSONValue) -> JSONValue {
        let keys: [JSONValue] = (jwks["keys"]?.array ?? []).compactMap { key in
            guard let object = key.object, object["k"] == nil else { return nil }
            var kept = JSONObject()
            for (name, value) in object.pairs where publicMembers.contains(name) { kept[name] = value }
            return .object(kept)
        }
        return ["keys": .array(keys)]
    }
}
