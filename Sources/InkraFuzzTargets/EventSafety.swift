import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraUsage
import SingleTable

/// The input is an API Gateway event, for `checkUsage`, `generateQuestions` and `authorizer` in
/// turn; anything but a 200 from a proxy function must leave the usage table as it was.
enum EventSafety {
    static func run(_ bytes: [UInt8]) async throws(FuzzFailure) {
        guard let event = try? JSONParser.parse(bytes) else { return }
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { fuzzInstant })
        let store = TableUsageStore(table: table, tableName: "inkra-usage")
        let functions: [(String, any EventHandler)] = [
            ("checkUsage", CheckUsage(store: store)),
            (
                "generateQuestions",
                GenerateQuestions(
                    store: store, generator: TemplateQuestionGenerator(seed: 1))
            ),
            ("authorizer", Authorizer(verifier: TokenGarbage.verifier)),
        ]
        for (name, function) in functions {
            let before = table.snapshot()
            let status: Int?
            do {
                status = try await function.handle(
                    event, context: InvocationContext(time: fuzzInstant, logger: silent))["statusCode"]?
                    .int
            } catch {
                status = nil
            }
            guard status == 200 || table.snapshot() == before else {
                throw FuzzFailure("\(name) answered \(status.map(String.init) ?? "an error") and changed the table")
            }
        }
    }
}
