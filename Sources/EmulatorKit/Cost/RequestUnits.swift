import Foundation
import SingleTable

/// Request units as on-demand DynamoDB charges them (Developer Guide, "DynamoDB read and write
/// operations", read-write-operations.html): a write unit per 1 KB of item, a read unit per 4 KB
/// read strongly consistent (half one eventually consistent), both rounded up, and twice as many
/// in a transaction.
package enum RequestUnits {
    /// Write units for an item of `bytes` bytes (at least one).
    package static func write(bytes: Int, transactional: Bool = false) -> Int {
        max(1, (bytes + 1023) / 1024) * (transactional ? 2 : 1)
    }

    /// Read units for `bytes` bytes read in one request (at least one 4 KB step).
    package static func read(bytes: Int, consistent: Bool) -> Double {
        let steps = Double(max(1, (bytes + 4095) / 4096))
        return consistent ? steps : steps / 2
    }
}
