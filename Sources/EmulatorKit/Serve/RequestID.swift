import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Request ids as AWS writes them (a random version-4 UUID in lower case). The local API and
/// Lambda make one per request, so the random bits come from a pool filled from `/dev/urandom`
/// 4 KB at a time: one read per 256 ids, where Foundation's `UUID` opened the device for each id
/// and the standard generator makes a system call per 8 bytes.
enum RequestID {
    private static let digits = Array("0123456789abcdef".utf8)
    private static let pool = Mutex(RandomPool())

    /// A new id, such as `c6af9ac6-7b61-41e6-9a41-93e8deadbeef`.
    static func make() -> String {
        let random = pool.withLock { $0.next() }
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

    /// API Gateway's extended request id (`extendedRequestId`, `x-amz-apigw-id`): here the id's
    /// first 16 characters, taken as bytes (an id is ASCII; counting characters cost more than
    /// the rest of the header).
    static func extended(_ id: String) -> String {
        String(Substring(id.utf8.prefix(16)))
    }

    /// Random words read from the system in blocks; the standard generator when the device
    /// cannot be read.
    struct RandomPool: ~Copyable {
        private var words = [UInt64](repeating: 0, count: 512)
        private var position = 512

        mutating func next() -> (UInt64, UInt64) {
            if position + 2 > words.count {
                refill()
                position = 0
            }
            defer { position += 2 }
            return (words[position], words[position + 1])
        }

        private mutating func refill() {
            let wanted = words.count * MemoryLayout<UInt64>.size
            let filled = words.withUnsafeMutableBytes { bytes in
                let device = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
                guard device >= 0 else { return false }
                defer { close(device) }
                var count = 0
                while count < wanted {
                    let read = read(device, bytes.baseAddress! + count, wanted - count)
                    guard read > 0 else { return false }
                    count += read
                }
                return true
            }
            guard !filled else { return }
            var generator = SystemRandomNumberGenerator()
            for index in words.indices { words[index] = generator.next() }
        }
    }
}
