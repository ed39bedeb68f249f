import EmulatorKit
import Foundation
import InkraTime
import SingleTable
import Testing

/// Item sizes and request units as AWS documents them:
/// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
/// ("DynamoDB item sizes and formats") and
/// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
/// ("DynamoDB read and write operations": 1 write unit per 1 KB, 1 read unit per 4 KB strongly
/// consistent, half eventually consistent, two for transactional requests; a conditional write
/// whose condition is false still consumes write units, for the larger of the existing and the new
/// item).
@Suite("Request units counted as on-demand DynamoDB charges them")
struct CountingTableTests {
    private static let name = "inkra-usage"

    /// `PK`, `SK` and a `blob` string making the item exactly `bytes` long.
    private static func item(_ key: String, bytes: Int, extra: Item = [:]) -> Item {
        let fixed = ItemSize.of(["PK": .s(key), "SK": .s("S"), "blob": .s("")].merging(extra) { $1 })
        return ["PK": .s(key), "SK": .s("S"), "blob": .s(String(repeating: "x", count: bytes - fixed))]
            .merging(extra) { $1 }
    }

    @Test("Sizes: names and values in UTF-8 bytes, numbers two digits a byte plus one, 3 bytes a list or map")
    func sizes() throws {
        // "PK" 2 + "USER#a" 6, "SK" 2 + "MONTH#2026-11" 13, "count" 5 + 12345 (5 digits: 3 + 1) = 32.
        #expect(ItemSize.of(["PK": .s("USER#a"), "SK": .s("MONTH#2026-11"), "count": .n(12345)]) == 32)
        #expect(ItemSize.of(.n(Number(1000))) == 2)  // trailing zeros trimmed: one digit
        #expect(ItemSize.of(.n(try Number(parsing: "0.0125"))) == 3)  // 125: two bytes of digits + 1
        #expect(ItemSize.of(.s("é")) == 2)  // UTF-8 bytes, not characters
        #expect(ItemSize.of(["ok": .bool(true), "no": .null]) == 6)
        #expect(ItemSize.of(.l([.s("ab"), .n(1)])) == 3 + (1 + 2) + (1 + 2))
        #expect(ItemSize.of(.m(["k": .s("v")])) == 3 + 1 + 1 + 1)
        #expect(ItemSize.of(Self.item("a", bytes: 1500)) == 1500)
    }

    @Test("Writes: the larger of before and after, per 1 KB; a failed condition still costs; index writes")
    func writes() async throws {
        let counted = CountingTable(InMemoryTable(schema: .singleTable(named: Self.name), now: { Timestamp.now }))
        // 1,500 bytes: 2 units.
        _ = try await counted.putItem(PutItemRequest(tableName: Self.name, item: Self.item("a", bytes: 1500)))
        #expect(counted.consumed.write == 2)
        // 100 bytes over 1,500: the larger, 2 units.
        _ = try await counted.putItem(PutItemRequest(tableName: Self.name, item: Self.item("a", bytes: 100)))
        #expect(counted.consumed.write == 4)
        // A put of 3,000 bytes whose condition fails on the 100-byte item: the larger, 3 units;
        // nothing written.
        await #expect(throws: TableError.self) {
            _ = try await counted.putItem(
                PutItemRequest(
                    tableName: Self.name, item: Self.item("a", bytes: 3000),
                    conditionExpression: "attribute_not_exists(PK)"))
        }
        #expect(counted.consumed.write == 7)
        #expect(
            try await counted.table.getItem(.init(tableName: Self.name, key: ["PK": .s("a"), "SK": .s("S")])).item
                .map(ItemSize.of) == 100)
        // An item in GSI1: 1 unit for the table, 1 for the index.
        _ = try await counted.putItem(
            PutItemRequest(
                tableName: Self.name, item: Self.item("b", bytes: 200, extra: ["GSI1PK": .s("G"), "GSI1SK": .s("1")])))
        #expect(counted.consumed.write == 9)
        #expect(counted.consumed.indexWrite == 1)
        // A transaction writing a new 23-byte item and checking another: 2 units each.
        try await counted.transactWriteItems(
            TransactWriteItemsRequest(transactItems: [
                .put(PutItemRequest(tableName: Self.name, item: ["PK": .s("c"), "SK": .s("S")])),
                .conditionCheck(
                    .init(
                        tableName: Self.name, key: ["PK": .s("a"), "SK": .s("S")],
                        conditionExpression: "attribute_exists(PK)")),
            ]))
        #expect(counted.consumed.write == 13)
        #expect(counted.consumed.read == 0)
    }

    @Test("Reads: per 4 KB, halved when eventually consistent; a scan sums its items before rounding")
    func reads() async throws {
        let counted = CountingTable(InMemoryTable(schema: .singleTable(named: Self.name), now: { Timestamp.now }))
        for key in ["a", "b"] {
            _ = try await counted.putItem(PutItemRequest(tableName: Self.name, item: Self.item(key, bytes: 3000)))
        }
        let written = counted.consumed.write
        #expect(written == 6)
        let key: Item = ["PK": .s("a"), "SK": .s("S")]
        _ = try await counted.getItem(GetItemRequest(tableName: Self.name, key: key, consistentRead: true))
        #expect(counted.consumed.read == 1)
        _ = try await counted.getItem(GetItemRequest(tableName: Self.name, key: key))
        #expect(counted.consumed.read == 1.5)
        // A missing item still costs a read unit's step.
        _ = try await counted.getItem(GetItemRequest(tableName: Self.name, key: ["PK": .s("z"), "SK": .s("S")]))
        #expect(counted.consumed.read == 2)
        // Two 3,000-byte items scanned: 6,000 bytes, two 4 KB steps, eventually consistent: 1 unit.
        _ = try await counted.scan(ScanRequest(tableName: Self.name))
        #expect(counted.consumed.read == 3)
        #expect(counted.consumed.write == written)
    }

    /// "DynamoDB processes each item in the batch as an individual GetItem request"
    /// (read-write-operations.html): each key asked for costs its own 4 KB step, found or not.
    @Test("BatchGetItem: each key asked for is a GetItem of its own, a missing item included")
    func batchReads() async throws {
        let counted = CountingTable(InMemoryTable(schema: .singleTable(named: Self.name), now: { Timestamp.now }))
        for key in ["a", "b"] {
            _ = try await counted.putItem(PutItemRequest(tableName: Self.name, item: Self.item(key, bytes: 3000)))
        }
        let keys: [Item] = ["a", "b", "z"].map { ["PK": .s($0), "SK": .s("S")] }
        _ = try await counted.batchGetItem(
            BatchGetItemRequest(requestItems: [Self.name: KeysAndAttributes(keys: keys, consistentRead: true)]))
        #expect(counted.consumed.read == 3)
        _ = try await counted.batchGetItem(
            BatchGetItemRequest(requestItems: [Self.name: KeysAndAttributes(keys: keys, consistentRead: false)]))
        #expect(counted.consumed.read == 4.5)
    }
}
