import DynamoDBTable
import Foundation
import InkraJSON
import SingleTable

/// What `aws dynamodb scan --table-name … --output json` prints (one page, or several saved one
/// after another), read as the items of the usage table, to seed `replay` and `serve` with the
/// table as it was (`--state-from-scan`).
package struct TableScan: Sendable {
    /// The items, in the wire form the scan prints (`{"PK":{"S":…},…}`).
    package var wireItems: [JSONObject]

    /// Reads a scan's text.
    /// - Parameter name: the file, as named in errors.
    /// - Throws: ``EmulatorError`` naming the file and what is wrong: not JSON, not a scan, or
    ///   items of another schema (the key attributes that are missing).
    package init(text: String, name: String) throws(EmulatorError) {
        let bytes = Array(text.utf8)
        let ranges = LogSource.documents(bytes)
        guard !ranges.isEmpty else { throw EmulatorError("\(name): no scan output in it (expected {\"Items\": […]})") }
        var items: [JSONObject] = []
        for (page, range) in ranges.enumerated() {
            let value: JSONValue
            do {
                value = try JSONParser.parse(Array(bytes[range.0..<range.1]))
            } catch {
                throw EmulatorError("\(name): page \(page + 1) is not valid JSON: \(error)")
            }
            guard let pageItems = value["Items"]?.array else {
                throw EmulatorError(
                    "\(name): page \(page + 1) is not the output of aws dynamodb scan --output json (no \"Items\")")
            }
            for (index, item) in pageItems.enumerated() {
                guard let object = item.object else {
                    throw EmulatorError("\(name): page \(page + 1), item \(index + 1) is not an object")
                }
                items.append(object)
            }
        }
        try Self.checkSchema(items, name: name)
        wireItems = items
    }

    /// Reads a scan file.
    /// - Throws: ``EmulatorError`` naming the file.
    package init(contentsOf url: URL) throws(EmulatorError) {
        let data = try Replayer.contents(of: url) { "\(url.relativePath): cannot be read: \($0)" }
        try self.init(text: String(decoding: data, as: UTF8.self), name: url.relativePath)
    }

    /// The usage table's schema: string keys `PK` and `SK` (docs/table.md); a scan of another
    /// table is refused naming what it lacks.
    static func checkSchema(_ items: [JSONObject], name: String) throws(EmulatorError) {
        for (index, item) in items.enumerated() {
            let missing = ["PK", "SK"].filter { item[$0]?["S"]?.string == nil }
            guard missing.isEmpty else {
                let has = item.keys.sorted().prefix(6).joined(separator: ", ")
                throw EmulatorError(
                    "\(name): item \(index + 1) is not of the usage table's schema: it lacks the string key "
                        + "\(missing.joined(separator: " and ")) (it has \(has.isEmpty ? "no attributes" : has)); "
                        + "scan the table INKRA_TABLE_NAME names (docs/table.md)")
            }
        }
    }

    /// The items as the table holds them.
    /// - Throws: ``EmulatorError`` naming an attribute value that cannot be read.
    package func items() throws(EmulatorError) -> [Item] {
        var items: [Item] = []
        for (index, wire) in wireItems.enumerated() {
            do {
                items.append(try Wire.item(wire))
            } catch {
                throw EmulatorError("scan item \(index + 1): \(error)")
            }
        }
        return items
    }

    /// The scan as one page of `aws dynamodb scan` output.
    package var json: JSONValue {
        [
            "Items": .array(wireItems.map(JSONValue.object)), "Count": .number(wireItems.count),
            "ScannedCount": .number(wireItems.count),
        ]
    }

    /// Puts every item into a table, as it was.
    /// - Throws: ``EmulatorError`` when the table refuses one.
    package func seed(_ table: any Table, tableName: String) async throws(EmulatorError) {
        for item in try items() {
            do {
                _ = try await table.putItem(PutItemRequest(tableName: tableName, item: item))
            } catch {
                throw EmulatorError("cannot seed the table from the scan: \(error)")
            }
        }
    }
}
