import Foundation
import InkraJSON

/// A token's payload, decoded without verification (to read its claims in a test).
func payload(of token: String) throws -> JSONObject {
    let parts = token.split(separator: ".")
    guard parts.count == 3 else { throw DecodeFailure() }
    var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    guard let data = Data(base64Encoded: text), let object = try JSONParser.parse(Array(data)).object else {
        throw DecodeFailure()
    }
    return object
}

struct DecodeFailure: Error {}
