import ArgumentParser
import EmulatorKit
import EmulatorServer
import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import LocalUserPool
import Logging

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the stack on loopback: API Gateway, the Lambda Invoke and Runtime APIs, and DynamoDB.",
        discussion: """
            API Gateway (--port): POST /questions -> generateQuestions, GET /usage -> checkUsage, \
            DELETE /account -> deleteAccount, the authorizer in front with its answers cached per token; \
            with --payload v1 (REST) a JSON body of POST /questions that template.yaml's request model \
            QuestionsRequest refuses gets 400 request_rejected and invokes nothing (openapi.yaml describes \
            every answer). \
            Lambda (--lambda-port): the Invoke API, \
            for aws lambda invoke --endpoint-url and boto3. Runtime API (--runtime-api-port): a real bootstrap \
            (started by --bootstrap, or by you with AWS_LAMBDA_RUNTIME_API pointing here) serves \
            --runtime-function while it polls; with --bootstrap it keeps usage in the DynamoDB endpoint, so \
            both share one table. \
            DynamoDB (--dynamodb-port): the in-memory table, for aws dynamodb --endpoint-url and boto3. \
            Console (--console-port, off with --no-console): a read-only page in the browser with the live \
            requests, each user's usage against the limits and the table's items. \
            Cognito (--cognito-port, off with --no-cognito): a user pool with template.yaml's rules for \
            aws cognito-idp --endpoint-url, boto3 and the app's SDK (SignUp, InitiateAuth with SRP, …); \
            confirmation codes go to the log, and the authorizer trusts its id tokens. \
            Port 0 picks a free port. SIGINT or SIGTERM stops accepting, finishes what is under way, writes \
            --state and exits 0.

            Examples, from the repository root (the second in another terminal):
              swift run inkra-emulator serve --state /tmp/inkra-serve.json
              curl -X POST localhost:3000/questions -d '{"topic":"my first job"}' \\
                -H "Authorization: Bearer $(swift run inkra-emulator token --sub alice)"

            --record DIR writes each API request answered as an event and its expectation, so that \
            `replay DIR` (with the same --limits and --seed) replays the session and checks every answer:
              swift run inkra-emulator serve --record session/
              swift run inkra-emulator replay session/
            """
    )

    @OptionGroup var options: ServeOptions

    func run() async throws {
        let server = try await options.start(freePorts: false)
        let (stack, configuration) = (server.stack, server.configuration)
        // As the deployed stack's schedule runs repairCharges: calls charged and never answered
        // (a runtime killed mid-request) get their unit back once their lease runs out.
        let repairs = Task { await Self.repairPeriodically(stack.handler(for: .repairCharges), stack: stack) }
        defer { repairs.cancel() }
        let watching = options.watchLoop(server).map { loop in Task { await loop.run() } }
        defer { watching?.cancel() }
        let stateFile = stack.options.stateFile
        let dynamoDBEndpoint = stack.options.dynamoDBEndpoint
        try await server.run(stopsOnSignals: true) { endpoints in
            Output.out(
                endpoints.banner(configuration: configuration, stateFile: stateFile, dynamoDBEndpoint: dynamoDBEndpoint)
            )
        }
        Output.err("inkra-emulator: stopped\(stateFile.map { "; state written to \($0.path)" } ?? "")")
    }
}

extension ServeCommand {
    /// How often `serve` runs `repairCharges`.
    static let repairInterval: Duration = .seconds(30)

    /// Runs `repairCharges` every ``repairInterval`` until cancelled, saying what it gave back.
    static func repairPeriodically(_ repair: any EventHandler, stack: EmulatorStack) async {
        while true {
            do {
                try await Task.sleep(for: repairInterval)
            } catch {
                return
            }
            do {
                let result = try await repair.handle([:], context: stack.context())
                if let repaired = result["repaired"]?.int, repaired > 0 {
                    Output.err("inkra-emulator: repairCharges gave back \(repaired) unit(s) of calls never answered")
                }
            } catch {
                Output.err("inkra-emulator: repairCharges failed: \(error.errorMessage); trying again in 30 s")
            }
        }
    }
}
