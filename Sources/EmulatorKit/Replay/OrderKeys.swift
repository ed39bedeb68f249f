/// A folder's order keys (``EventSource/orderKey(_:name:)``), sorted by their UTF-8 bytes and
/// kept in one buffer: a key costs its bytes, a terminator and a 4-byte offset. As a million
/// `String`s of 16 to 40 bytes, each cost 64 to 80 bytes and a folder of a million events needed
/// 133 MB to replay.
struct OrderKeys {
    /// The keys' bytes, each followed by ``terminator``.
    private var bytes: [UInt8] = []
    /// Where each key starts in `bytes`, in key order once sorted.
    private var starts: [UInt32] = []

    /// Ends each key: a byte UTF-8 never holds.
    private static let terminator: UInt8 = 0xFF

    /// How many keys there are.
    var count: Int { starts.count }

    /// No keys yet, with room for `count` keys of `bytes` bytes in all.
    init(reservingCapacity count: Int = 0, bytes: Int = 0) {
        starts.reserveCapacity(count)
        self.bytes.reserveCapacity(bytes + count)
    }

    /// Adds a key.
    /// - Returns: false when the keys would pass 4 GiB, and the key was not added.
    mutating func append(_ key: String) -> Bool {
        guard bytes.count + key.utf8.count + 1 <= Int(UInt32.max) else { return false }
        starts.append(UInt32(bytes.count))
        bytes.append(contentsOf: key.utf8)
        bytes.append(Self.terminator)
        return true
    }

    /// Puts the keys in the order of their bytes, a key before any longer key it begins.
    mutating func sort() {
        bytes.withUnsafeBufferPointer { bytes in
            starts.sort { Self.precedes(bytes, Int($0), Int($1)) }
        }
    }

    /// The key at a position.
    subscript(position: Int) -> String {
        let start = Int(starts[position])
        let end = bytes[start...].firstIndex(of: Self.terminator) ?? bytes.endIndex
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static func precedes(_ bytes: UnsafeBufferPointer<UInt8>, _ first: Int, _ second: Int) -> Bool {
        var first = first
        var second = second
        while true {
            let a = bytes[first]
            let b = bytes[second]
            if a != b { return a == terminator || (b != terminator && a < b) }
            if a == terminator { return false }
            first += 1
            second += 1
        }
    }
}
