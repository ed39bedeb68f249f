extension Collection where Element: Equatable {
    /// The first place `part` occurs, front to back; `nil` when it does not (and for an empty
    /// `part`). The standard library's `firstRange(of:)` lives in `_StringProcessing`, which would
    /// bring Regex (about 0.8 MB) into `bootstrap` for three calls.
    package func firstRange(ofPart part: some Collection<Element>) -> Range<Index>? {
        guard let first = part.first else { return nil }
        var start = startIndex
        while let candidate = self[start...].firstIndex(of: first) {
            var index = candidate
            var matched = true
            for element in part {
                guard index != endIndex, self[index] == element else {
                    matched = false
                    break
                }
                formIndex(after: &index)
            }
            if matched { return candidate..<index }
            start = self.index(after: candidate)
        }
        return nil
    }
}
