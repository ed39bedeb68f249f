import ArgumentParser
import DynamoDBTable
import EmulatorKit
import Foundation
import HTTPText
import InkraTime
import SingleTable

struct CreateTableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-table",
        abstract: "Create the usage table (PK/SK, GSI1 on GSI1PK/GSI1SK, TTL on expiresAt) on a DynamoDB endpoint.",
        discussion: """
            Credentials and region come from the usual AWS_* variables (any value will do for a local endpoint).

            Examples, from the repository root (moto_server from pip install 'moto[server]'):
              moto_server -H 127.0.0.1 -p 5055 &
              swift run inkra-emulator create-table \\
                --dynamodb-endpoint http://127.0.0.1:5055 --if-not-exists
            """
    )

    @Option(
        name: .customLong("dynamodb-endpoint"), help: "The DynamoDB-compatible endpoint, e.g. http://127.0.0.1:8000.")
    var dynamoDBEndpoint: String

    @Option(help: "The table's name.")
    var table: String = "inkra-usage"

    @Flag(name: .customLong("if-not-exists"), help: "Succeed when the table exists already.")
    var ifNotExists = false

    func run() async throws {
        guard let url = HTTPURL(string: dynamoDBEndpoint), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("--dynamodb-endpoint must be an http or https URL")
        }
        do {
            try await EmulatorStack.dynamoDB(url, now: { Timestamp.now }).createTable(
                .singleTable(named: table), ifNotExists: ifNotExists)
        } catch {
            throw UsageFailure("cannot create table \(table) at \(dynamoDBEndpoint): \(error)")
        }
        Output.out("created table \(table) at \(dynamoDBEndpoint) (PK, SK; GSI1 on GSI1PK, GSI1SK; TTL on expiresAt)")
    }
}
