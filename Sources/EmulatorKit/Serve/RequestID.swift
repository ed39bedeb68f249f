/// Request ids as AWS writes them: a random version-4 UUID in lower case.
enum RequestID {
    /// A new id, such as `c6af9ac6-7b61-41e6-9a41-93e8deadbeef`. Two words of the system's random
    /// generator (Foundation's `UUID()` cost 4–5 µs an id here, a fair part of a served request).
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = (generator.next() as UInt64) & ~0xF000 | 0x4000  // version 4
        let low = (generator.next() as UInt64) & ~(0xC << 60) | (0x8 << 60)  // variant 10xx
        let hex = [high, low].map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
        return [
            hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
            hex.dropFirst(20),
        ].joined(separator: "-")
    }

    /// API Gateway's extended request id (`extendedRequestId`, `x-amz-apigw-id`): here the id's
    /// first 16 characters.
    static func extended(_ id: String) -> String {
        String(id.prefix(16))
    }
}
