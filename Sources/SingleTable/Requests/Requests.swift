/// What an operation returns of the item it wrote (DynamoDB's `ReturnValues`).
public enum ReturnValues: String, Sendable, Hashable {
    /// Nothing (`NONE`), the default.
    case none = "NONE"
    /// The whole item as it was before the operation (`ALL_OLD`).
    case allOld = "ALL_OLD"
    /// The attributes the update changed, as they were before it (`UPDATED_OLD`).
    case updatedOld = "UPDATED_OLD"
    /// The whole item as it is after the operation (`ALL_NEW`).
    case allNew = "ALL_NEW"
    /// The attributes the update changed, as they are after it (`UPDATED_NEW`).
    case updatedNew = "UPDATED_NEW"
}

/// What a failed condition returns of the item (DynamoDB's `ReturnValuesOnConditionCheckFailure`).
public enum ReturnValuesOnConditionCheckFailure: String, Sendable, Hashable {
    /// Nothing (`NONE`), the default.
    case none = "NONE"
    /// The item as it was (`ALL_OLD`).
    case allOld = "ALL_OLD"
}

/// The placeholders of an expression: `#name` → attribute name, `:value` → attribute value.
public struct ExpressionAttributes: Sendable, Hashable {
    /// `ExpressionAttributeNames`.
    public var names: [String: String]
    /// `ExpressionAttributeValues`.
    public var values: [String: AttributeValue]

    /// Creates a set of placeholders.
    public init(names: [String: String] = [:], values: [String: AttributeValue] = [:]) {
        self.names = names
        self.values = values
    }
}

/// `GetItem`.
public struct GetItemRequest: Sendable, Hashable {
    public var tableName: String
    public var key: Item
    public var consistentRead: Bool
    public var projectionExpression: String?
    public var expressionAttributeNames: [String: String]

    public init(
        tableName: String,
        key: Item,
        consistentRead: Bool = false,
        projectionExpression: String? = nil,
        expressionAttributeNames: [String: String] = [:]
    ) {
        self.tableName = tableName
        self.key = key
        self.consistentRead = consistentRead
        self.projectionExpression = projectionExpression
        self.expressionAttributeNames = expressionAttributeNames
    }
}

/// The answer to `GetItem`: the item, or `nil` when there is none under the key.
public struct GetItemResponse: Sendable, Hashable {
    public var item: Item?

    public init(item: Item?) {
        self.item = item
    }
}

/// The keys to read from one table in a `BatchGetItem`.
public struct KeysAndAttributes: Sendable, Hashable {
    public var keys: [Item]
    public var consistentRead: Bool
    public var projectionExpression: String?
    public var expressionAttributeNames: [String: String]

    public init(
        keys: [Item],
        consistentRead: Bool = false,
        projectionExpression: String? = nil,
        expressionAttributeNames: [String: String] = [:]
    ) {
        self.keys = keys
        self.consistentRead = consistentRead
        self.projectionExpression = projectionExpression
        self.expressionAttributeNames = expressionAttributeNames
    }
}

/// `BatchGetItem`: up to 100 keys across tables.
public struct BatchGetItemRequest: Sendable, Hashable {
    /// Table name → keys to read.
    public var requestItems: [String: KeysAndAttributes]

    public init(requestItems: [String: KeysAndAttributes]) {
        self.requestItems = requestItems
    }
}

/// The answer to `BatchGetItem`. Items come in no particular order; keys the table could not
/// read this time come back in `unprocessedKeys`.
public struct BatchGetItemResponse: Sendable, Hashable {
    public var responses: [String: [Item]]
    public var unprocessedKeys: [String: KeysAndAttributes]

    public init(responses: [String: [Item]], unprocessedKeys: [String: KeysAndAttributes] = [:]) {
        self.responses = responses
        self.unprocessedKeys = unprocessedKeys
    }
}

/// `PutItem`.
public struct PutItemRequest: Sendable, Hashable {
    public var tableName: String
    public var item: Item
    public var conditionExpression: String?
    public var expressionAttributes: ExpressionAttributes
    /// `NONE` or `ALL_OLD`.
    public var returnValues: ReturnValues
    public var returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure

    public init(
        tableName: String,
        item: Item,
        conditionExpression: String? = nil,
        expressionAttributes: ExpressionAttributes = ExpressionAttributes(),
        returnValues: ReturnValues = .none,
        returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure = .none
    ) {
        self.tableName = tableName
        self.item = item
        self.conditionExpression = conditionExpression
        self.expressionAttributes = expressionAttributes
        self.returnValues = returnValues
        self.returnValuesOnConditionCheckFailure = returnValuesOnConditionCheckFailure
    }
}

/// The answer to a write: the attributes `ReturnValues` asked for, if any.
public struct WriteItemResponse: Sendable, Hashable {
    public var attributes: Item?

    public init(attributes: Item? = nil) {
        self.attributes = attributes
    }
}

/// `UpdateItem`.
public struct UpdateItemRequest: Sendable, Hashable {
    public var tableName: String
    public var key: Item
    public var updateExpression: String?
    public var conditionExpression: String?
    public var expressionAttributes: ExpressionAttributes
    public var returnValues: ReturnValues
    public var returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure

    public init(
        tableName: String,
        key: Item,
        updateExpression: String?,
        conditionExpression: String? = nil,
        expressionAttributes: ExpressionAttributes = ExpressionAttributes(),
        returnValues: ReturnValues = .none,
        returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure = .none
    ) {
        self.tableName = tableName
        self.key = key
        self.updateExpression = updateExpression
        self.conditionExpression = conditionExpression
        self.expressionAttributes = expressionAttributes
        self.returnValues = returnValues
        self.returnValuesOnConditionCheckFailure = returnValuesOnConditionCheckFailure
    }
}

/// `DeleteItem`.
public struct DeleteItemRequest: Sendable, Hashable {
    public var tableName: String
    public var key: Item
    public var conditionExpression: String?
    public var expressionAttributes: ExpressionAttributes
    /// `NONE` or `ALL_OLD`.
    public var returnValues: ReturnValues
    public var returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure

    public init(
        tableName: String,
        key: Item,
        conditionExpression: String? = nil,
        expressionAttributes: ExpressionAttributes = ExpressionAttributes(),
        returnValues: ReturnValues = .none,
        returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure = .none
    ) {
        self.tableName = tableName
        self.key = key
        self.conditionExpression = conditionExpression
        self.expressionAttributes = expressionAttributes
        self.returnValues = returnValues
        self.returnValuesOnConditionCheckFailure = returnValuesOnConditionCheckFailure
    }
}

/// `Query`, on the table's key or on a global secondary index.
public struct QueryRequest: Sendable, Hashable {
    public var tableName: String
    public var indexName: String?
    public var keyConditionExpression: String
    public var filterExpression: String?
    public var projectionExpression: String?
    public var expressionAttributes: ExpressionAttributes
    /// Ascending sort-key order when `true` (the default), descending when `false`.
    public var scanIndexForward: Bool
    /// The most items to evaluate before stopping (before the filter, as DynamoDB counts).
    public var limit: Int?
    /// Where to resume: the `lastEvaluatedKey` of the previous page.
    public var exclusiveStartKey: Item?
    public var consistentRead: Bool

    public init(
        tableName: String,
        indexName: String? = nil,
        keyConditionExpression: String,
        filterExpression: String? = nil,
        projectionExpression: String? = nil,
        expressionAttributes: ExpressionAttributes = ExpressionAttributes(),
        scanIndexForward: Bool = true,
        limit: Int? = nil,
        exclusiveStartKey: Item? = nil,
        consistentRead: Bool = false
    ) {
        self.tableName = tableName
        self.indexName = indexName
        self.keyConditionExpression = keyConditionExpression
        self.filterExpression = filterExpression
        self.projectionExpression = projectionExpression
        self.expressionAttributes = expressionAttributes
        self.scanIndexForward = scanIndexForward
        self.limit = limit
        self.exclusiveStartKey = exclusiveStartKey
        self.consistentRead = consistentRead
    }
}

/// `Scan` of a whole table or index.
public struct ScanRequest: Sendable, Hashable {
    public var tableName: String
    public var indexName: String?
    public var filterExpression: String?
    public var projectionExpression: String?
    public var expressionAttributes: ExpressionAttributes
    public var limit: Int?
    public var exclusiveStartKey: Item?
    public var consistentRead: Bool

    public init(
        tableName: String,
        indexName: String? = nil,
        filterExpression: String? = nil,
        projectionExpression: String? = nil,
        expressionAttributes: ExpressionAttributes = ExpressionAttributes(),
        limit: Int? = nil,
        exclusiveStartKey: Item? = nil,
        consistentRead: Bool = false
    ) {
        self.tableName = tableName
        self.indexName = indexName
        self.filterExpression = filterExpression
        self.projectionExpression = projectionExpression
        self.expressionAttributes = expressionAttributes
        self.limit = limit
        self.exclusiveStartKey = exclusiveStartKey
        self.consistentRead = consistentRead
    }
}

/// One page of a `Query` or `Scan`.
public struct QueryResponse: Sendable, Hashable {
    /// The items of this page, after the filter.
    public var items: [Item]
    /// Items evaluated before the filter.
    public var scannedCount: Int
    /// Where the next page starts, or `nil` when there is no more.
    public var lastEvaluatedKey: Item?

    /// The number of items in this page.
    public var count: Int { items.count }

    public init(items: [Item], scannedCount: Int, lastEvaluatedKey: Item?) {
        self.items = items
        self.scannedCount = scannedCount
        self.lastEvaluatedKey = lastEvaluatedKey
    }
}

/// One action of a `TransactWriteItems`.
public enum TransactWriteItem: Sendable, Hashable {
    /// A condition on an item that must hold for the transaction to go through.
    case conditionCheck(ConditionCheck)
    /// A put.
    case put(PutItemRequest)
    /// An update.
    case update(UpdateItemRequest)
    /// A delete.
    case delete(DeleteItemRequest)

    /// A condition checked in a transaction without writing the item.
    public struct ConditionCheck: Sendable, Hashable {
        public var tableName: String
        public var key: Item
        public var conditionExpression: String
        public var expressionAttributes: ExpressionAttributes
        public var returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure

        public init(
            tableName: String,
            key: Item,
            conditionExpression: String,
            expressionAttributes: ExpressionAttributes = ExpressionAttributes(),
            returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure = .none
        ) {
            self.tableName = tableName
            self.key = key
            self.conditionExpression = conditionExpression
            self.expressionAttributes = expressionAttributes
            self.returnValuesOnConditionCheckFailure = returnValuesOnConditionCheckFailure
        }
    }
}

/// `TransactWriteItems`: up to 100 actions on distinct items, all applied or none.
public struct TransactWriteItemsRequest: Sendable, Hashable {
    public var transactItems: [TransactWriteItem]
    /// Makes the call idempotent for ten minutes: a retry with the same token is not applied twice.
    public var clientRequestToken: String?

    public init(transactItems: [TransactWriteItem], clientRequestToken: String? = nil) {
        self.transactItems = transactItems
        self.clientRequestToken = clientRequestToken
    }
}
