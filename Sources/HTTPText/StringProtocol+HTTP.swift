extension StringProtocol {
    /// Whether the two texts are equal ignoring the case of ASCII letters, as HTTP header names
    /// and the `Bearer` scheme compare; byte by byte, without allocating. Inlinable, so each
    /// caller gets a loop specialized for its string types (the generic one resolves type metadata
    /// per call, and header lookups made it an eighth of the local API Gateway's time).
    @inlinable
    package func caseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        let left = utf8
        let right = other.utf8
        guard left.count == right.count else { return false }
        var index = left.startIndex
        var otherIndex = right.startIndex
        while index != left.endIndex {
            let a = left[index]
            let b = right[otherIndex]
            if a != b {
                let folded = a | 0x20
                guard folded == b | 0x20, folded >= 0x61, folded <= 0x7A else { return false }
            }
            left.formIndex(after: &index)
            right.formIndex(after: &otherIndex)
        }
        return true
    }

    /// The text without leading and trailing spaces and tabs, HTTP's optional whitespace (without
    /// Foundation's bridging, which costs microseconds on a request's path). Inlinable for the
    /// same reason as ``caseInsensitiveEquals(_:)``.
    @inlinable
    package func trimmingSpacesAndTabs() -> SubSequence {
        // The usual text has nothing to trim, which its first byte and last character tell without
        // walking its characters from both ends.
        if let first = utf8.first, let last, !Self.isBlankByte(first), last != " ", last != "\t" {
            return self[...]
        }
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }

    @usableFromInline
    package static func isBlankByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
