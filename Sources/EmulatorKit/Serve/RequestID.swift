/// Request ids as AWS writes them (a random version-4 UUID in lower case), made from the system's
/// random generator without Foundation's `UUID`, which opens and reads `/dev/urandom` each time:
/// the local API makes one per request.
enum RequestID {
    private static let digits = Array("0123456789abcdef".utf8)

    /// A new id, such as `c6af9ac6-7b61-41e6-9a41-93e8deadbeef`.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let random: (UInt64, UInt64) = (generator.next(), generator.next())
        let high = (random.0 & ~0xF000) | 0x4000  // version 4
        let low = (random.1 & ~(0xC << 60)) | (0x8 << 60)  // variant 10xx
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var nibble = 0
            for position in 0..<36 {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    buffer[position] = UInt8(ascii: "-")
                    continue
                }
                let word = nibble < 16 ? high : low
                let shift = UInt64(60 - 4 * (nibble % 16))
                buffer[position] = digits[Int((word >> shift) & 0xF)]
                nibble += 1
            }
            return 36
        }
    }
}
