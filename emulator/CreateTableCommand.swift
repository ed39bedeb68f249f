import ArgumentParser
import DynamoDBTable
import EmulatorKit
import Foundation
import SingleTable

struct CreateTableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-table",
        abstract: "Create the usage table of SPEC §7 (PK/SK, GSI1, TTL on expiresAt) on a DynamoDB endpoint."
    )

    @Option(
        name: .customLong("dynamodb-endpoint"), help: "The DynamoDB-compatible endpoint, e.g. http://127.0.0.1:8000.")
    var dynamoDBEndpoint: String

    @Option(help: "The table's name.")
    var table: String = "inkra-usage"

    @Flag(name: .customLong("if-not-exists"), help: "Succeed when the table exists already.")
    var ifNotExists = false

    func run() async throws {
        guard let url = URL(string: dynamoDBEndpoint), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("--dynamodb-endpoint must be an http or https URL")
        }
        do {
            try await EmulatorStack.dynamoDB(url, now: { Date() }).createTable(
                .singleTable(named: table), ifNotExists: ifNotExists)
        } catch {
            throw UsageFailure("cannot create table \(table) at \(dynamoDBEndpoint): \(error)")
        }
        Output.out("created table \(table) at \(dynamoDBEndpoint) (PK, SK; GSI1 on GSI1PK, GSI1SK; TTL on expiresAt)")
    }
}
