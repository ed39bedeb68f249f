import InkraJSON
import SingleTable

/// DynamoDB's JSON request bodies for the `Table` requests.
enum RequestEncoding {
    static func expressionFields(_ attributes: ExpressionAttributes, into object: inout JSONObject) {
        if !attributes.names.isEmpty {
            object["ExpressionAttributeNames"] = .object(
                JSONObject(attributes.names.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
        }
        if !attributes.values.isEmpty { object["ExpressionAttributeValues"] = Wire.item(attributes.values) }
    }

    static func get(_ request: GetItemRequest) -> JSONValue {
        var object: JSONObject = ["TableName": .string(request.tableName), "Key": Wire.item(request.key)]
        if request.consistentRead { object["ConsistentRead"] = true }
        if let projection = request.projectionExpression { object["ProjectionExpression"] = .string(projection) }
        expressionFields(ExpressionAttributes(names: request.expressionAttributeNames), into: &object)
        return .object(object)
    }

    static func batchGet(_ request: BatchGetItemRequest) -> JSONValue {
        var tables = JSONObject()
        for (name, keys) in request.requestItems.sorted(by: { $0.key < $1.key }) {
            var entry: JSONObject = ["Keys": .array(keys.keys.map(Wire.item))]
            if keys.consistentRead { entry["ConsistentRead"] = true }
            if let projection = keys.projectionExpression { entry["ProjectionExpression"] = .string(projection) }
            expressionFields(ExpressionAttributes(names: keys.expressionAttributeNames), into: &entry)
            tables[name] = .object(entry)
        }
        return ["RequestItems": .object(tables)]
    }

    static func put(_ request: PutItemRequest, inTransaction: Bool = false) -> JSONValue {
        var object: JSONObject = ["TableName": .string(request.tableName), "Item": Wire.item(request.item)]
        if let condition = request.conditionExpression { object["ConditionExpression"] = .string(condition) }
        expressionFields(request.expressionAttributes, into: &object)
        returnFields(request.returnValues, request.returnValuesOnConditionCheckFailure, inTransaction, into: &object)
        return .object(object)
    }

    static func update(_ request: UpdateItemRequest, inTransaction: Bool = false) -> JSONValue {
        var object: JSONObject = ["TableName": .string(request.tableName), "Key": Wire.item(request.key)]
        if let update = request.updateExpression { object["UpdateExpression"] = .string(update) }
        if let condition = request.conditionExpression { object["ConditionExpression"] = .string(condition) }
        expressionFields(request.expressionAttributes, into: &object)
        returnFields(request.returnValues, request.returnValuesOnConditionCheckFailure, inTransaction, into: &object)
        return .object(object)
    }

    static func delete(_ request: DeleteItemRequest, inTransaction: Bool = false) -> JSONValue {
        var object: JSONObject = ["TableName": .string(request.tableName), "Key": Wire.item(request.key)]
        if let condition = request.conditionExpression { object["ConditionExpression"] = .string(condition) }
        expressionFields(request.expressionAttributes, into: &object)
        returnFields(request.returnValues, request.returnValuesOnConditionCheckFailure, inTransaction, into: &object)
        return .object(object)
    }

    static func query(_ request: QueryRequest) -> JSONValue {
        var object: JSONObject = [
            "TableName": .string(request.tableName), "KeyConditionExpression": .string(request.keyConditionExpression),
        ]
        if let index = request.indexName { object["IndexName"] = .string(index) }
        if let filter = request.filterExpression { object["FilterExpression"] = .string(filter) }
        if let projection = request.projectionExpression { object["ProjectionExpression"] = .string(projection) }
        expressionFields(request.expressionAttributes, into: &object)
        if !request.scanIndexForward { object["ScanIndexForward"] = false }
        if let limit = request.limit { object["Limit"] = .number(limit) }
        if let start = request.exclusiveStartKey { object["ExclusiveStartKey"] = Wire.item(start) }
        if request.consistentRead { object["ConsistentRead"] = true }
        return .object(object)
    }

    static func scan(_ request: ScanRequest) -> JSONValue {
        var object: JSONObject = ["TableName": .string(request.tableName)]
        if let index = request.indexName { object["IndexName"] = .string(index) }
        if let filter = request.filterExpression { object["FilterExpression"] = .string(filter) }
        if let projection = request.projectionExpression { object["ProjectionExpression"] = .string(projection) }
        expressionFields(request.expressionAttributes, into: &object)
        if let limit = request.limit { object["Limit"] = .number(limit) }
        if let start = request.exclusiveStartKey { object["ExclusiveStartKey"] = Wire.item(start) }
        if request.consistentRead { object["ConsistentRead"] = true }
        return .object(object)
    }

    static func transact(_ request: TransactWriteItemsRequest, token: String) -> JSONValue {
        let items: [JSONValue] = request.transactItems.map { action in
            switch action {
            case .put(let request): ["Put": Self.put(request, inTransaction: true)]
            case .update(let request): ["Update": Self.update(request, inTransaction: true)]
            case .delete(let request): ["Delete": Self.delete(request, inTransaction: true)]
            case .conditionCheck(let check):
                {
                    var object: JSONObject = [
                        "TableName": .string(check.tableName), "Key": Wire.item(check.key),
                        "ConditionExpression": .string(check.conditionExpression),
                    ]
                    expressionFields(check.expressionAttributes, into: &object)
                    if check.returnValuesOnConditionCheckFailure == .allOld {
                        object["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
                    }
                    return ["ConditionCheck": .object(object)]
                }()
            }
        }
        return ["TransactItems": .array(items), "ClientRequestToken": .string(token)]
    }

    private static func returnFields(
        _ values: ReturnValues,
        _ onFailure: ReturnValuesOnConditionCheckFailure,
        _ inTransaction: Bool,
        into object: inout JSONObject
    ) {
        if !inTransaction && values != .none { object["ReturnValues"] = .string(values.rawValue) }
        if onFailure == .allOld { object["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD" }
    }
}
