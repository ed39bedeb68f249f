/// X-Ray's trace header, as Lambda hands it to a runtime (`Lambda-Runtime-Trace-Id`, exported as
/// `_X_AMZN_TRACE_ID`): `Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1`.
///
/// The fields are those of X-Ray's developer guide, "Tracing header"
/// (https://docs.aws.amazon.com/xray/latest/devguide/xray-concepts.html#xray-concepts-tracingheader);
/// fields it does not name (`Lineage`, …) are ignored.
package struct TraceHeader: Sendable, Hashable {
    /// The trace's id (`1-{8 hex digits of time}-{24 hex digits}`).
    package var root: String
    /// The id of the segment the work is under: for a Lambda function, the function's segment.
    package var parent: String?
    /// Whether the trace is recorded: `Sampled=1`.
    package var sampled: Bool

    /// Creates a header.
    package init(root: String, parent: String?, sampled: Bool) {
        self.root = root
        self.parent = parent
        self.sampled = sampled
    }

    /// The header in `text`, or `nil` when it names no well-formed root.
    package init?(_ text: String) {
        var root: String?
        var parent: String?
        var sampled = false
        for field in text.split(separator: ";") {
            let parts = field.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingSpaces()
            let value = String(parts[1].trimmingSpaces())
            switch name {
            case "Root": root = value
            case "Parent": parent = value
            case "Sampled": sampled = value == "1"
            default: continue
            }
        }
        guard let root, Self.isTraceID(root) else { return nil }
        self.root = root
        self.parent = parent.flatMap { Self.isSegmentID($0) ? $0 : nil }
        self.sampled = sampled
    }

    /// Whether `text` has the form of a trace id: `1-` then 8 hex digits, `-`, 24 hex digits.
    static func isTraceID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "1" && parts[1].count == 8 && parts[2].count == 24
            && parts[1].allSatisfy(\.isHexDigit) && parts[2].allSatisfy(\.isHexDigit)
    }

    /// Whether `text` has the form of a segment id: 16 hex digits.
    static func isSegmentID(_ text: String) -> Bool {
        text.count == 16 && text.allSatisfy(\.isHexDigit)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
