import InkraJSON

/// A traced invocation's spans as one X-Ray segment document: a subsegment sent on its own, under
/// the function's segment that Lambda records (`parent_id`, the trace header's `Parent`), with the
/// spans nested inside it as they ran.
///
/// The fields are those of "AWS X-Ray segment documents"
/// (https://docs.aws.amazon.com/xray/latest/devguide/xray-api-segmentdocuments.html): a subsegment
/// sent separately carries `type: "subsegment"`, `trace_id` and `parent_id`; times are seconds
/// since the epoch; `namespace` is `aws` for an AWS call and `remote` for another downstream one;
/// `error`, `throttle` and `fault` mark 4xx, 429 and 5xx outcomes.
package enum XRaySegments {
    /// The document of `recorder`'s spans, or `nil` when there is nothing to send: no span, or no
    /// parent to send it under.
    package static func document(_ recorder: TraceRecorder) -> JSONValue? {
        let (spans, dropped) = recorder.spans
        guard let parent = recorder.header.parent, !spans.isEmpty else { return nil }
        let ids = Set(spans.map(\.id))
        // A span whose parent was dropped (the recorder keeps the first spans to finish, and a
        // parent finishes after its children) goes under the top.
        let top = spans.filter { $0.parentID == nil || !ids.contains($0.parentID!) }
        var children: [String: [TraceSpan]] = [:]
        for span in spans where span.parentID != nil && ids.contains(span.parentID!) {
            children[span.parentID!, default: []].append(span)
        }
        func object(_ span: TraceSpan) -> JSONObject {
            var fields = fields(of: span)
            let nested = (children[span.id] ?? []).sorted { $0.start < $1.start }
            if !nested.isEmpty { fields["subsegments"] = .array(nested.map { .object(object($0)) }) }
            return fields
        }
        guard top.count == 1, var root = top.first.map(object) else {
            // Several spans at the top (only when the function's own was dropped): one invocation
            // subsegment holds them.
            let start = spans.map(\.start).min() ?? spans[0].start
            let end = spans.compactMap(\.end).max() ?? start
            var holder = JSONObject()
            holder["name"] = "invocation"
            holder["id"] = .string(TraceRecorder.randomID())
            holder["start_time"] = seconds(start)
            holder["end_time"] = seconds(end)
            holder["subsegments"] = .array(top.sorted { $0.start < $1.start }.map { .object(object($0)) })
            return .object(separate(holder, recorder.header, parent: parent, dropped: dropped))
        }
        root = separate(root, recorder.header, parent: parent, dropped: dropped)
        return .object(root)
    }

    /// `fields` as a subsegment sent on its own.
    private static func separate(_ fields: JSONObject, _ header: TraceHeader, parent: String, dropped: Int)
        -> JSONObject
    {
        var fields = fields
        fields["type"] = "subsegment"
        fields["trace_id"] = .string(header.root)
        fields["parent_id"] = .string(parent)
        if dropped > 0 { fields["metadata"] = ["inkra": ["dropped_subsegments": .number(dropped)]] }
        return fields
    }

    /// One span's fields, without its children.
    static func fields(of span: TraceSpan) -> JSONObject {
        var fields = JSONObject()
        fields["name"] = .string(String(span.name.prefix(200)))
        fields["id"] = .string(span.id)
        fields["start_time"] = seconds(span.start)
        fields["end_time"] = seconds(span.end ?? span.start)
        if let namespace = span.namespace { fields["namespace"] = .string(namespace.rawValue) }
        var aws = JSONObject()
        if let operation = span.operation { aws["operation"] = .string(operation) }
        if let region = span.region { aws["region"] = .string(region) }
        if let table = span.tableName { aws["table_name"] = .string(table) }
        if let retries = span.retries { aws["retries"] = .number(retries) }
        if let capacity = span.consumedCapacity {
            aws["consumed_capacity"] = ["CapacityUnits": .number(String(capacity))]
        }
        if !aws.keys.isEmpty { fields["aws"] = .object(aws) }
        var http = JSONObject()
        var request = JSONObject()
        if let method = span.method { request["method"] = .string(method) }
        if let url = span.url { request["url"] = .string(url) }
        if !request.keys.isEmpty { http["request"] = .object(request) }
        if let status = span.status { http["response"] = ["status": .number(status)] }
        if !http.keys.isEmpty { fields["http"] = .object(http) }
        if span.error { fields["error"] = true }
        if span.throttle { fields["throttle"] = true }
        if span.fault { fields["fault"] = true }
        if let cause = span.cause {
            fields["cause"] = ["exceptions": [["id": .string(TraceRecorder.randomID()), "message": .string(cause)]]]
        }
        return fields
    }

    /// An instant as X-Ray writes it: seconds since the epoch, to the microsecond.
    static func seconds(_ instant: Double) -> JSONValue {
        let micros = Int64((instant * 1_000_000).rounded())
        let fraction = String(micros % 1_000_000)
        return .number("\(micros / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)")
    }
}
