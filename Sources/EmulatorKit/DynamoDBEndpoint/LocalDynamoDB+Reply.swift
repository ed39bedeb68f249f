import CZlib
import DynamoDBTable
import Foundation
import InkraJSON
import SingleTable

extension LocalDynamoDB {
    /// The HTTP answer: the operation's JSON, or DynamoDB's error body with its status.
    static func reply(_ outcome: Result<JSONValue, TableError>, status: Int? = nil) -> LocalHTTPResponse {
        let code: Int
        let body: JSONValue
        switch outcome {
        case .success(let json):
            code = 200
            body = json
        case .failure(let error):
            code = status ?? httpStatus(error.code)
            body = errorBody(error)
        }
        let bytes = body.jsonBytes
        return LocalHTTPResponse(
            status: code,
            headers: [
                ("Content-Type", "application/x-amz-json-1.0"), ("x-amzn-RequestId", requestID()),
                // CRC-32 (IEEE 802.3), which DynamoDB sends and botocore checks: zlib's.
                ("x-amz-crc32", String(bytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })),
            ],
            body: bytes)
    }

    /// DynamoDB's error JSON: `__type` with the service's namespace, `message`, and the item or
    /// cancellation reasons it carries.
    static func errorBody(_ error: TableError) -> JSONValue {
        let namespace =
            ["UnknownOperationException", "SerializationException"].contains(error.code.rawValue)
            ? "com.amazon.coral.service" : "com.amazonaws.dynamodb.v20120810"
        var object: JSONObject = ["__type": .string("\(namespace)#\(error.code.rawValue)")]
        if !error.message.isEmpty {
            object[
                error.code == .validation || error.code.rawValue == "SerializationException" ? "Message" : "message"] =
                .string(error.message)
        }
        if let item = error.item { object["Item"] = Wire.item(item) }
        if error.code == .transactionCanceled {
            object["CancellationReasons"] = .array(
                error.cancellationReasons.map { reason in
                    var entry: JSONObject = ["Code": .string(reason.code)]
                    if let message = reason.message { entry["Message"] = .string(message) }
                    if let item = reason.item { entry["Item"] = Wire.item(item) }
                    return .object(entry)
                })
        }
        return .object(object)
    }

    static func httpStatus(_ code: TableError.Code) -> Int {
        switch code {
        case .internalServerError: 500
        case .serviceUnavailable: 503
        default: 400
        }
    }

    /// A request id as DynamoDB writes them: 52 upper-case letters and digits.
    static func requestID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<52).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }
}
