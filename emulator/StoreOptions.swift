import ArgumentParser
import Foundation
import HTTPText

/// Where the usage table is kept: a state file, or DynamoDB with the table's name (docs/emulator.md).
struct StoreOptions: ParsableArguments {
    @Option(help: "The state file keeping the in-memory table between runs (no other process may hold it meanwhile).")
    var state: String?

    @Option(
        name: .customLong("dynamodb-endpoint"),
        help: "Keep usage in DynamoDB at this URL: AWS's, a serve's (its banner says it), DynamoDB Local, moto.")
    var dynamoDBEndpoint: String?

    @Option(help: "The usage table's name.")
    var table: String = "inkra-usage"

    func validate() throws {
        guard let dynamoDBEndpoint else { return }
        guard let url = HTTPURL(string: dynamoDBEndpoint), url.scheme == "http" || url.scheme == "https"
        else {
            throw ValidationError("--dynamodb-endpoint must be an http or https URL, not \"\(dynamoDBEndpoint)\"")
        }
    }
}
