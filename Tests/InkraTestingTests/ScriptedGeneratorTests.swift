import Foundation
import InkraHandlers
import InkraJSON
import InkraTesting
import Testing

@Suite("ScriptedGenerator")
struct ScriptedGeneratorTests {
    static let request = QuestionRequest(topic: "sailing", count: 3)

    @Test("Plays its steps in order, then repeats the last; remembers what it was asked")
    func script() async throws {
        let generator = ScriptedGenerator([.questions(["One?"]), .failure, .template])
        #expect(try await generator.questions(for: Self.request) == ["One?"])
        await #expect(throws: TestFailure.self) { try await generator.questions(for: Self.request) }
        let template = try await TemplateQuestionGenerator().questions(for: Self.request)
        #expect(try await generator.questions(for: Self.request) == template)
        #expect(try await generator.questions(for: QuestionRequest(topic: "sailing", count: 3)) == template)
        #expect(generator.requests == Array(repeating: Self.request, count: 4))
    }

    @Test("A delayed step waits, and stops waiting when its task is cancelled")
    func delay() async throws {
        let generator = ScriptedGenerator(repeating: .delayed(.seconds(600), .questions(["Late?"])))
        let call = Task { try await generator.questions(for: Self.request) }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        let quick = ScriptedGenerator(repeating: .delayed(.milliseconds(1), .questions(["Soon?"])))
        #expect(try await quick.questions(for: Self.request) == ["Soon?"])
    }

    @Test("Through generateQuestions: a failure is 502 and the unit is given back; the retry succeeds")
    func failureThenSuccess() async throws {
        let clock = ManualClock("2026-03-10T10:00:00Z")
        let store = InMemoryUsageStore(now: clock.closure)
        let generator = ScriptedGenerator([.failure, .questions(["Where?", "When?"])])
        let generate = GenerateQuestions(store: store, generator: generator)
        let event = ProxyEvent.http(caller: Caller("ada"), body: #"{"topic":"x","count":2}"#)
        let failed = try await ProxyResult(generate.handle(event, context: clock.context))
        #expect(failed.statusCode == 502)
        #expect(failed.code == "generation_failed")
        let retried = try await ProxyResult(generate.handle(event, context: clock.context))
        #expect(retried.body["questions"] == ["Where?", "When?"])
        #expect(retried.body["usage"]?["used"] == 1)
        #expect(generator.requests.map(\.count) == [2, 2])
    }
}
