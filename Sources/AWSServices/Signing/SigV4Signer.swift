import HTTPText
import InkraCrypto
import InkraJSON
import InkraTime

/// AWS Signature Version 4 for one service and region.
package struct SigV4Signer: Sendable {
    /// The credentials to sign with.
    package var credentials: AWSCredentials
    /// The region, such as `us-east-1`.
    package var region: String
    /// The service, such as `dynamodb`.
    package var service: String

    /// A signer.
    package init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The pieces of a signature, for inspection and tests.
    package struct Signature: Sendable, Hashable {
        package var canonicalRequest: String
        package var stringToSign: String
        package var signature: String
        package var signedHeaders: String
        /// The `Authorization` header's value.
        package var authorization: String
    }

    /// Signs a request; returns the headers to add (`Host` when `headers` have none, `X-Amz-Date`,
    /// `Authorization`, and `X-Amz-Security-Token` with temporary credentials).
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - url: the full URL (path and query are signed).
    ///   - headers: the headers to sign (`Host` is added from the URL when missing).
    ///   - body: the payload.
    ///   - date: the signing time.
    package func sign(
        method: String,
        url: HTTPURL,
        headers: [(String, String)],
        body: [UInt8],
        date: Timestamp
    ) -> (headers: [(String, String)], signature: Signature) {
        let amzDate = Self.amzDate(date)
        var signed = headers
        var added: [(String, String)] = []
        if !signed.contains(where: { $0.0.lowercased() == "host" }) {
            // Signed and sent as one value, so the signature covers the Host the server reads.
            let host = url.hostHeader  // as botocore derives it (`_host_from_url`)
            signed.append(("Host", host))
            added.append(("Host", host))
        }
        signed.append(("X-Amz-Date", amzDate))
        added.append(("X-Amz-Date", amzDate))
        if let token = credentials.sessionToken {
            signed.append(("X-Amz-Security-Token", token))
            added.append(("X-Amz-Security-Token", token))
        }
        let signature = self.signature(method: method, url: url, headers: signed, body: body, amzDate: amzDate)
        added.append(("Authorization", signature.authorization))
        return (added, signature)
    }

    /// The signature of a request whose headers already include `X-Amz-Date` (and `Host`).
    package func signature(method: String, url: HTTPURL, headers: [(String, String)], body: [UInt8], amzDate: String)
        -> Signature
    {
        let day = String(amzDate.prefix(8))
        let canonicalHeaders = Self.canonicalHeaders(headers)
        let signedHeaders = canonicalHeaders.map(\.0).joined(separator: ";")
        let canonicalRequest = [
            method.uppercased(),
            Self.canonicalPath(url),
            Self.canonicalQuery(url),
            canonicalHeaders.map { "\($0.0):\($0.1)\n" }.joined(),
            signedHeaders,
            Self.hex(SHA2.sha256.hash(body)),
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA2.sha256.hash(canonicalRequest.utf8)),
        ].joined(separator: "\n")
        let key = signingKey(day: day)
        let signature = Self.hex(HMACSHA256.authenticationCode(for: stringToSign.utf8, key: key))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return Signature(
            canonicalRequest: canonicalRequest,
            stringToSign: stringToSign,
            signature: signature,
            signedHeaders: signedHeaders,
            authorization: authorization
        )
    }

    /// The derived signing key for a day (`yyyyMMdd`): 32 bytes.
    package func signingKey(day: String) -> [UInt8] {
        func mac(_ key: [UInt8], _ text: String) -> [UInt8] {
            HMACSHA256.authenticationCode(for: text.utf8, key: key)
        }
        let secret = Array("AWS4\(credentials.secretAccessKey)".utf8)
        return mac(mac(mac(mac(secret, day), region), service), "aws4_request")
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    package static func amzDate(_ date: Timestamp) -> String {
        CivilTime(date).iso8601.filter { $0 != "-" && $0 != ":" }
    }

    /// Lower-cased names, sorted; values trimmed with inner runs of spaces collapsed; repeated
    /// headers joined with commas.
    static func canonicalHeaders(_ headers: [(String, String)]) -> [(String, String)] {
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            let collapsed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            merged[name.lowercased(), default: []].append(String(collapsed.trimmingSpacesAndTabs()))
        }
        return merged.keys.sorted().map { ($0, merged[$0]!.joined(separator: ",")) }
    }

    static func canonicalPath(_ url: HTTPURL) -> String {
        let path = url.path.isEmpty ? "/" : url.path
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { encode(decode($0)) }.joined(separator: "/")
    }

    static func canonicalQuery(_ url: HTTPURL) -> String {
        guard let query = url.query, !query.isEmpty
        else { return "" }
        let pairs = query.split(separator: "&").map { part -> (String, String) in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(pieces[0])
            let value = pieces.count > 1 ? decode(pieces[1]) : ""
            return (encode(name), encode(value))
        }
        return pairs.sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(
            separator: "&")
    }

    /// RFC 3986 encoding: everything but unreserved characters.
    static func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output.append("%")
                output.append(upperHexDigits[Int(byte >> 4)])
                output.append(upperHexDigits[Int(byte & 0xF)])
            }
        }
        return output
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var output = ""
        for byte in bytes {
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0xF)])
        }
        return output
    }

    private static let hexDigits = Array("0123456789abcdef")
    private static let upperHexDigits = Array("0123456789ABCDEF")

    /// Percent-decoding; a malformed escape is kept as it is.
    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
                let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: low)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
