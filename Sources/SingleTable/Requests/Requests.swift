/// What an operation returns of the item it wrote (DynamoDB's `ReturnValues`).
package enum ReturnValues: String, Sendable, Hashable {
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
package enum ReturnValuesOnConditionCheckFailure: String, Sendable, Hashable {
    /// Nothing (`NONE`), the default.
    case none = "NONE"
    /// The item as it was (`ALL_OLD`).
    case allOld = "ALL_OLD"
}

/// The placeholders of an expression: `#name` → attribute name, `:value` → attribute value.
package struct ExpressionAttributes: Sendable, Hashable {
    /// `ExpressionAttributeNames`.
    package var names: [String: String]
    /// `ExpressionAttributeValues`.
    package var values: [String: AttributeValue]

    /// Creates a set of placeholders.
    package init(names: [String: String] = [:], values: [String: AttributeValue] = [:]) {
        self.names = names
        self.values = values
    }
}

/// `GetItem`.
package struct GetItemRequest: Sendable, Hashable {
    package var tableName: String
    package var key: Item
    package var consistentRead: Bool
    package var projectionExpression: String?
    package var expressionAttributeNames: [String: String]

    package init(
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
package struct GetItemResponse: Sendable, Hashable {
    package var item: Item?

    package init(item: Item?) {
        self.item = item
    }
}

/// The keys to read from one table in a `BatchGetItem`.
package struct KeysAndAttributes: Sendable, Hashable {
    package var keys: [Item]
    package var consistentRead: Bool
    package var projectionExpression: String?
    package var expressionAttributeNames: [String: String]

    package init(
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
package struct BatchGetItemRequest: Sendable, Hashable {
    /// Table name → keys to read.
    package var requestItems: [String: KeysAndAttributes]

    package init(requestItems: [String: KeysAndAttributes]) {
        self.requestItems = requestItems
    }
}

/// The answer to `BatchGetItem`. Items come in no particular order; keys the table could not
/// read this time come back in `unprocessedKeys`.
package struct BatchGetItemResponse: Sendable, Hashable {
    package var responses: [String: [Item]]
    package var unprocessedKeys: [String: KeysAndAttributes]

    package init(responses: [String: [Item]], unprocessedKeys: [String: KeysAndAttributes] = [:]) {
        self.responses = responses
        self.unprocessedKeys = unprocessedKeys
    }
}

/// `PutItem`.
package struct PutItemRequest: Sendable, Hashable {
    package var tableName: String
    package var item: Item
    package var conditionExpression: String?
    package var expressionAttributes: ExpressionAttributes
    /// `NONE` or `ALL_OLD`.
    package var returnValues: ReturnValues
    package var returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure

    package init(
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
package struct WriteItemResponse: Sendable, Hashable {
    package var attributes: Item?

    package init(attributes: Item? = nil) {
        self.attributes = attributes
    }
}

/// `UpdateItem`.
package struct UpdateItemRequest: Sendable, Hashable {
    package var tableName: String
    package var key: Item
    package var updateExpression: String?
    package var conditionExpression: String?
    package var expressionAttributes: ExpressionAttributes
    package var returnValues: ReturnValues
    package var returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure

    package init(
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
package struct DeleteItemRequest: Sendable, Hashable {
    package var tableName: String
    package var key: Item
    package var conditionExpression: String?
    package var expressionAttributes: ExpressionAttributes
    /// `NONE` or `ALL_OLD`.
    package var returnValues: ReturnValues
    package var returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure

    package init(
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
package struct QueryRequest: Sendable, Hashable {
    package var tableName: String
    package var indexName: String?
    package var keyConditionExpression: String
    package var filterExpression: String?
    package var projectionExpression: String?
    package var expressionAttributes: ExpressionAttributes
    /// Ascending sort-key order when `true` (the default), descending when `false`.
    package var scanIndexForward: Bool
    /// The most items to evaluate before stopping (before the filter, as DynamoDB counts).
    package var limit: Int?
    /// Where to resume: the `lastEvaluatedKey` of the previous page.
    package var exclusiveStartKey: Item?
    package var consistentRead: Bool

    package init(
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
package struct ScanRequest: Sendable, Hashable {
    package var tableName: String
    package var indexName: String?
    package var filterExpression: String?
    package var projectionExpression: String?
    package var expressionAttributes: ExpressionAttributes
    package var limit: Int?
    package var exclusiveStartKey: Item?
    package var consistentRead: Bool

    package init(
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
package struct QueryResponse: Sendable, Hashable {
    /// The items of this page, after the filter.
    package var items: [Item]
    /// Items evaluated before the filter.
    package var scannedCount: Int
    /// Where the next page starts, or `nil` when there is no more.
    package var lastEvaluatedKey: Item?

    /// The number of items in this page.
    package var count: Int { items.count }

    package init(items: [Item], scannedCount: Int, lastEvaluatedKey: Item?) {
        self.items = items
        self.scannedCount = scannedCount
        self.lastEvaluatedKey = lastEvaluatedKey
    }
}

/// One action of a `TransactWriteItems`.
package enum TransactWriteItem: Sendable, Hashable {
    /// A condition on an item that must hold for the transaction to go through.
    case conditionCheck(ConditionCheck)
    /// A put.
    case put(PutItemRequest)
    /// An update.
    case update(UpdateItemRequest)
    /// A delete.
    case delete(DeleteItemRequest)

    /// A condition checked in a transaction without writing the item.
    package struct ConditionCheck: Sendable, Hashable {
        package var tableName: String
        package var key: Item
        package var conditionExpression: String
        package var expressionAttributes: ExpressionAttributes
        package var returnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure

        package init(
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
package struct TransactWriteItemsRequest: Sendable, Hashable {
    package var transactItems: [TransactWriteItem]
    /// Makes the call idempotent for ten minutes: a retry with the same token is not applied twice.
    package var clientRequestToken: String?

    package init(transactItems: [TransactWriteItem], clientRequestToken: String? = nil) {
        self.transactItems = transactItems
        self.clientRequestToken = clientRequestToken
    }
}
