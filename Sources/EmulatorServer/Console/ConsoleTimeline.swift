import InkraJSON

/// A request's X-Ray segment document as the console's timeline draws it: one row per subsegment,
/// depth first, each with its depth, its start and length in milliseconds from the function's own
/// start, and what X-Ray would show of it (operation, table, status, retries, throttle, error,
/// fault).
enum ConsoleTimeline {
    /// The rows of `document`; empty when it has no times.
    static func rows(_ document: JSONValue) -> [JSONValue] {
        guard let origin = document["start_time"]?.double else { return [] }
        var rows: [JSONValue] = []
        func visit(_ span: JSONValue, depth: Int) {
            guard let start = span["start_time"]?.double else { return }
            let end = span["end_time"]?.double ?? start
            var row: JSONObject = [
                "name": span["name"] ?? "?", "depth": .number(depth),
                "offset": .number(milliseconds(start - origin)), "duration": .number(milliseconds(end - start)),
            ]
            row["namespace"] = span["namespace"]
            row["operation"] = span["aws"]?["operation"]
            row["table"] = span["aws"]?["table_name"]
            row["retries"] = span["aws"]?["retries"]
            row["status"] = span["http"]?["response"]?["status"]
            let flags = ["throttle", "error", "fault"].filter { span[$0] == true }
            if !flags.isEmpty { row["flags"] = .array(flags.map(JSONValue.string)) }
            rows.append(.object(row))
            for child in span["subsegments"]?.array ?? [] { visit(child, depth: depth + 1) }
        }
        visit(document, depth: 0)
        return rows
    }

    /// Seconds as milliseconds with two decimals, as a JSON number.
    static func milliseconds(_ seconds: Double) -> String {
        let hundredths = Int((seconds * 100_000).rounded())
        let fraction = String(abs(hundredths) % 100)
        return "\(hundredths < 0 ? "-" : "")\(abs(hundredths) / 100).\(fraction.count == 1 ? "0" : "")\(fraction)"
    }
}
