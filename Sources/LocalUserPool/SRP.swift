import Crypto
import Foundation
import InkraTime

/// SRP-6a as Amazon Cognito runs it for `USER_SRP_AUTH` (the server's half).
///
/// The 3072-bit group of RFC 5054 (the RFC 3526 prime) with g = 2 and SHA-256; `k = H(N | PAD(g))`;
/// `x = H(salt | H(poolName | userIdForSRP | ":" | password))`; `u = H(PAD(A) | PAD(B))`; the
/// session key is HKDF-SHA256 of `PAD(S)` with salt `PAD(u)` and info "Caldera Derived Key", 16
/// bytes; the client proves it with `PASSWORD_CLAIM_SIGNATURE = HMAC-SHA256(key, poolName |
/// userIdForSRP | secretBlock | timestamp)`. `PAD` is the minimal big-endian form with a leading
/// zero byte when the high bit is set, as Cognito's clients (Amplify's `AuthenticationHelper`,
/// pycognito's `aws_srp.py`) encode numbers. `poolName` is the pool id after its `_`.
enum SRP {
    /// N: the 3072-bit MODP prime of RFC 3526 section 4.
    static let prime = BigUInt(
        hex: "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
            + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
            + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
            + "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
            + "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
            + "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
            + "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
            + "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF")!
    /// g.
    static let generator = BigUInt(2)
    /// k = H(PAD(N) | PAD(g)).
    static let multiplier = BigUInt(bytes: sha256(padded(prime) + padded(generator)))
    /// HKDF's info.
    static let info = Array("Caldera Derived Key".utf8)

    /// The number's minimal big-endian bytes, with a leading zero byte when the high bit is set.
    static func padded(_ value: BigUInt) -> [UInt8] {
        let bytes = value.bytes
        guard let first = bytes.first else { return [0] }
        return first >= 0x80 ? [0] + bytes : bytes
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// x = H(PAD(salt) | H(poolName | userID | ":" | password)).
    static func privateKey(salt: BigUInt, poolName: String, userID: String, password: String) -> BigUInt {
        let inner = sha256(Array("\(poolName)\(userID):\(password)".utf8))
        return BigUInt(bytes: sha256(padded(salt) + inner))
    }

    /// v = g^x mod N: what the pool keeps instead of the password for SRP.
    static func verifier(salt: BigUInt, poolName: String, userID: String, password: String) -> BigUInt {
        generator.power(privateKey(salt: salt, poolName: poolName, userID: userID, password: password), modulus: prime)
    }

    /// B = (k·v + g^b) mod N.
    static func serverPublic(verifier: BigUInt, secret: BigUInt) -> BigUInt {
        (multiplier * verifier + generator.power(secret, modulus: prime)) % prime
    }

    /// u = H(PAD(A) | PAD(B)).
    static func scrambler(clientPublic: BigUInt, serverPublic: BigUInt) -> BigUInt {
        BigUInt(bytes: sha256(padded(clientPublic) + padded(serverPublic)))
    }

    /// The 16-byte session key, or `nil` when A mod N or u is zero (the checks SRP-6a requires).
    static func sessionKey(clientPublic: BigUInt, serverPublic: BigUInt, secret: BigUInt, verifier: BigUInt)
        -> [UInt8]?
    {
        guard !(clientPublic % prime).isZero else { return nil }
        let u = scrambler(clientPublic: clientPublic, serverPublic: serverPublic)
        guard !u.isZero else { return nil }
        // S = (A · v^u)^b mod N
        let base = (clientPublic * verifier.power(u, modulus: prime)) % prime
        return derivedKey(shared: base.power(secret, modulus: prime), scrambler: u)
    }

    /// The 16-byte session key both sides derive from S: HKDF-SHA256 of PAD(S), salt PAD(u).
    static func derivedKey(shared: BigUInt, scrambler u: BigUInt) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: padded(shared)), salt: padded(u), info: info, outputByteCount: 16)
        return key.withUnsafeBytes { Array($0) }
    }

    /// PASSWORD_CLAIM_SIGNATURE's bytes: HMAC-SHA256(key, poolName | userID | secretBlock | timestamp).
    static func signature(key: [UInt8], poolName: String, userID: String, secretBlock: [UInt8], timestamp: String)
        -> [UInt8]
    {
        let message = Array(poolName.utf8) + Array(userID.utf8) + secretBlock + Array(timestamp.utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Cognito's TIMESTAMP form, in UTC: `Wed Nov 5 07:03:09 UTC 2025` (the day not zero-padded).
    static func timestamp(_ date: Timestamp) -> String {
        let civil = CivilTime(date)
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let weekday = ((days + 4) % 7 + 7) % 7  // 1970-01-01 was a Thursday; 0 is Sunday
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[weekday]) \(months[civil.month - 1]) \(civil.day) "
            + "\(two(civil.hour)):\(two(civil.minute)):\(two(civil.second)) UTC \(civil.year)"
    }

    /// Whether a TIMESTAMP has Cognito's form (a day of up to two digits, the rest fixed).
    static func isWellFormed(timestamp: String) -> Bool {
        let parts = timestamp.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, weekdays.contains(String(parts[0])), months.contains(String(parts[1])),
            let day = Int(parts[2]), (1...31).contains(day), parts[3].count == 8, parts[4] == "UTC",
            Int(parts[5]) != nil
        else { return false }
        return true
    }
}
