import DynamoDBTable
import InkraJSON
import SingleTable

/// One DynamoDB JSON request body, read into the `SingleTable` requests, with DynamoDB's
/// validation messages for what is missing or malformed.
struct WireRequest {
    let body: JSONObject

    init(_ bytes: [UInt8]) throws(TableError) {
        guard let json = try? JSONParser.parse(bytes.isEmpty ? Array("{}".utf8) : bytes), let object = json.object
        else {
            throw TableError(
                TableError.Code(rawValue: "SerializationException"),
                "Start of structure or map found where not expected")
        }
        body = object
    }

    init(object: JSONObject) { body = object }

    static func invalid(_ message: String) -> TableError { TableError(.validation, message) }

    /// DynamoDB's refusal of a request without a member it needs (`field` as its message names it).
    static func missing(_ field: String) -> TableError {
        invalid(
            "1 validation error detected: Value null at '\(field)' failed to satisfy constraint: Member must not be null"
        )
    }

    func string(_ name: String, constraint field: String) throws(TableError) -> String {
        guard let value = body[name]?.string else { throw Self.missing(field) }
        return value
    }

    func optionalString(_ name: String) throws(TableError) -> String? {
        switch body[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw Self.invalid("\(name) must be a string")
        }
    }

    func bool(_ name: String) -> Bool { body[name]?.bool ?? false }

    func int(_ name: String) throws(TableError) -> Int? {
        guard let value = body[name], value != .null else { return nil }
        guard let number = value.int, number >= 1 else {
            throw Self.invalid(
                "1 validation error detected: Value '\(value.jsonString)' at '\(name.prefix(1).lowercased() + name.dropFirst())' "
                    + "failed to satisfy constraint: Member must have value greater than or equal to 1")
        }
        return number
    }

    var tableName: String {
        get throws(TableError) { try string("TableName", constraint: "tableName") }
    }

    func item(_ name: String, required: Bool = true) throws(TableError) -> Item? {
        guard let value = body[name], value != .null else {
            if required { throw Self.missing(name.prefix(1).lowercased() + name.dropFirst()) }
            return nil
        }
        guard let object = value.object else { throw Self.invalid("\(name) must be a map of attribute values") }
        do {
            return try Wire.item(object)
        } catch {
            throw Self.invalid("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
        }
    }

    var expressionAttributes: ExpressionAttributes {
        get throws(TableError) {
            var names: [String: String] = [:]
            for (key, value) in body["ExpressionAttributeNames"]?.object?.pairs ?? [] {
                guard let text = value.string else {
                    throw Self.invalid("ExpressionAttributeNames must map to strings")
                }
                names[key] = text
            }
            return ExpressionAttributes(
                names: names, values: try item("ExpressionAttributeValues", required: false) ?? [:])
        }
    }

    var returnValues: ReturnValues {
        get throws(TableError) {
            guard let text = try optionalString("ReturnValues") else { return .none }
            guard let value = ReturnValues(rawValue: text) else {
                throw Self.invalid(
                    "1 validation error detected: Value '\(text)' at 'returnValues' failed to satisfy constraint: "
                        + "Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]")
            }
            return value
        }
    }

    var returnOnFailure: ReturnValuesOnConditionCheckFailure {
        get throws(TableError) {
            guard let text = try optionalString("ReturnValuesOnConditionCheckFailure") else { return .none }
            guard let value = ReturnValuesOnConditionCheckFailure(rawValue: text) else {
                throw Self.invalid("ReturnValuesOnConditionCheckFailure must be ALL_OLD or NONE, not \(text)")
            }
            return value
        }
    }

    func getItem() throws(TableError) -> GetItemRequest {
        GetItemRequest(
            tableName: try tableName, key: try item("Key") ?? [:], consistentRead: bool("ConsistentRead"),
            projectionExpression: try optionalString("ProjectionExpression"),
            expressionAttributeNames: try expressionAttributes.names)
    }

    func putItem() throws(TableError) -> PutItemRequest {
        PutItemRequest(
            tableName: try tableName, item: try item("Item") ?? [:],
            conditionExpression: try optionalString("ConditionExpression"),
            expressionAttributes: try expressionAttributes, returnValues: try returnValues,
            returnValuesOnConditionCheckFailure: try returnOnFailure)
    }

    func updateItem() throws(TableError) -> UpdateItemRequest {
        UpdateItemRequest(
            tableName: try tableName, key: try item("Key") ?? [:],
            updateExpression: try optionalString("UpdateExpression"),
            conditionExpression: try optionalString("ConditionExpression"),
            expressionAttributes: try expressionAttributes, returnValues: try returnValues,
            returnValuesOnConditionCheckFailure: try returnOnFailure)
    }

    func deleteItem() throws(TableError) -> DeleteItemRequest {
        DeleteItemRequest(
            tableName: try tableName, key: try item("Key") ?? [:],
            conditionExpression: try optionalString("ConditionExpression"),
            expressionAttributes: try expressionAttributes, returnValues: try returnValues,
            returnValuesOnConditionCheckFailure: try returnOnFailure)
    }

    func query() throws(TableError) -> QueryRequest {
        QueryRequest(
            tableName: try tableName, indexName: try optionalString("IndexName"),
            keyConditionExpression: try string("KeyConditionExpression", constraint: "keyConditionExpression"),
            filterExpression: try optionalString("FilterExpression"),
            projectionExpression: try optionalString("ProjectionExpression"),
            expressionAttributes: try expressionAttributes,
            scanIndexForward: body["ScanIndexForward"]?.bool ?? true, limit: try int("Limit"),
            exclusiveStartKey: try item("ExclusiveStartKey", required: false), consistentRead: bool("ConsistentRead"))
    }

    func scan() throws(TableError) -> ScanRequest {
        ScanRequest(
            tableName: try tableName, indexName: try optionalString("IndexName"),
            filterExpression: try optionalString("FilterExpression"),
            projectionExpression: try optionalString("ProjectionExpression"),
            expressionAttributes: try expressionAttributes, limit: try int("Limit"),
            exclusiveStartKey: try item("ExclusiveStartKey", required: false), consistentRead: bool("ConsistentRead"))
    }

    func batchGetItem() throws(TableError) -> BatchGetItemRequest {
        guard let tables = body["RequestItems"]?.object, !tables.isEmpty else { throw Self.missing("requestItems") }
        var requestItems: [String: KeysAndAttributes] = [:]
        for (name, entry) in tables.pairs {
            guard let object = entry.object else { throw Self.invalid("RequestItems.\(name) must be a map") }
            let reader = WireRequest(object: object)
            guard let keys = object["Keys"]?.array, !keys.isEmpty else {
                throw Self.invalid("RequestItems.\(name).Keys must name at least one key")
            }
            var items: [Item] = []
            for key in keys {
                guard let keyObject = key.object, let keyItem = try? Wire.item(keyObject) else {
                    throw Self.invalid("RequestItems.\(name).Keys must hold maps of attribute values")
                }
                items.append(keyItem)
            }
            requestItems[name] = KeysAndAttributes(
                keys: items, consistentRead: reader.bool("ConsistentRead"),
                projectionExpression: try reader.optionalString("ProjectionExpression"),
                expressionAttributeNames: try reader.expressionAttributes.names)
        }
        return BatchGetItemRequest(requestItems: requestItems)
    }

    func transactWriteItems() throws(TableError) -> TransactWriteItemsRequest {
        guard let actions = body["TransactItems"]?.array else { throw Self.missing("transactItems") }
        var items: [TransactWriteItem] = []
        for action in actions {
            guard let object = action.object, object.count == 1, let kind = object.pairs.first?.key,
                let inner = object[kind]?.object
            else {
                throw Self.invalid("TransactItems can only contain one of Check, Put, Update or Delete")
            }
            let reader = WireRequest(object: inner)
            switch kind {
            case "Put": items.append(.put(try reader.putItem()))
            case "Update": items.append(.update(try reader.updateItem()))
            case "Delete": items.append(.delete(try reader.deleteItem()))
            case "ConditionCheck":
                items.append(
                    .conditionCheck(
                        TransactWriteItem.ConditionCheck(
                            tableName: try reader.tableName, key: try reader.item("Key") ?? [:],
                            conditionExpression: try reader.string(
                                "ConditionExpression", constraint: "conditionExpression"),
                            expressionAttributes: try reader.expressionAttributes,
                            returnValuesOnConditionCheckFailure: try reader.returnOnFailure)))
            default:
                throw Self.invalid("TransactItems can only contain one of Check, Put, Update or Delete, not \(kind)")
            }
        }
        return TransactWriteItemsRequest(
            transactItems: items, clientRequestToken: try optionalString("ClientRequestToken"))
    }
}
