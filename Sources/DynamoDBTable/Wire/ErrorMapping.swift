import InkraJSON
import SingleTable

/// DynamoDB's error answers as `TableError` values.
package enum ErrorMapping {
    package static func error(status: Int, body: JSONValue) -> TableError {
        let type = (body["__type"]?.string ?? "").split(separator: "#").last.map(String.init) ?? ""
        let message = body["message"]?.string ?? body["Message"]?.string ?? "HTTP \(status)"
        switch type {
        case "ConditionalCheckFailedException":
            return TableError(.conditionalCheckFailed, message, item: try? Wire.item(body["Item"]))
        case "TransactionCanceledException":
            let reasons = (body["CancellationReasons"]?.array ?? []).map { reason in
                TableError.CancellationReason(
                    code: reason["Code"]?.string ?? "None",
                    message: reason["Message"]?.string,
                    item: (try? Wire.item(reason["Item"])) ?? nil
                )
            }
            return TableError(.transactionCanceled, message, cancellationReasons: reasons)
        case "ValidationException", "SerializationException":
            return TableError(.validation, message)
        case "ResourceNotFoundException", "ProvisionedThroughputExceededException", "ThrottlingException",
            "RequestLimitExceeded", "TransactionConflictException", "TransactionInProgressException",
            "IdempotentParameterMismatchException", "ServiceUnavailable":
            // DynamoDB's name is the code's.
            return TableError(TableError.Code(rawValue: type), message)
        case "InternalServerError", "InternalFailure":
            return TableError(.internalServerError, message)
        case "":
            return status >= 500
                ? TableError(.internalServerError, "DynamoDB answered HTTP \(status)")
                : TableError(.validation, "DynamoDB answered HTTP \(status): \(message)")
        default:
            return status >= 500
                ? TableError(.internalServerError, "\(type): \(message)")
                : TableError(TableError.Code(rawValue: type), message)
        }
    }
}
