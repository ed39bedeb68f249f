import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import SingleTable
import Testing

@Suite("Asking again gives fresh questions; a replayed request the same ones")
struct FreshQuestionsTests {
    static func answer(
        _ topic: String, count: Int, length: QuestionLength = .medium, language: String? = nil, turn: Int
    ) -> [String] {
        TemplateQuestionGenerator(seed: 1).questions(
            QuestionRequest(topic: topic, count: count, length: length, language: language, turn: turn))
    }

    /// The largest count whose consecutive answers are guaranteed apart: half of the bank.
    static func freshCounts(_ language: String?) -> ClosedRange<Int> {
        language == nil ? 1...20 : 1...12
    }

    @Test(
        "Consecutive turns share no question, and no answer repeats one",
        arguments: [nil, "es", "fr", "de"] as [String?])
    func consecutiveTurns(language: String?) {
        for topic in SampleTopic.all.map(\.text).prefix(12) {
            for count in Self.freshCounts(language) {
                for length in QuestionLength.allCases {
                    var previous: [String]?
                    for turn in 1...5 {
                        let questions = Self.answer(topic, count: count, length: length, language: language, turn: turn)
                        #expect(Set(questions).count == count, "a repeat within turn \(turn) of \(topic)")
                        if let previous {
                            let shared = Set(previous).intersection(questions)
                            #expect(shared.isEmpty, "turn \(turn) of \(topic), count \(count): \(shared)")
                        }
                        previous = questions
                    }
                }
            }
        }
    }

    @Test("Consecutive answers share no template even when the topic changes between them")
    func changingTopics() {
        let topics = ["learning to sail", "starting a bakery", "the 2011 floods", "learning to sail"]
        for count in [3, 5, 8, 20] {
            var previous: Set<String>?
            for (turn, topic) in topics.enumerated() {
                let templates = Set(
                    Self.answer(topic, count: count, turn: turn + 1).map {
                        $0.replacingOccurrences(of: topic, with: "{topic}")
                    })
                if let previous { #expect(previous.isDisjoint(with: templates), "count \(count), turn \(turn + 1)") }
                previous = templates
            }
        }
    }

    @Test("Turns two apart move on too, while the bank allows")
    func turnsTwoApart() {
        let first = Self.answer("my first job", count: 5, turn: 2)
        let third = Self.answer("my first job", count: 5, turn: 4)
        #expect(Set(first).intersection(third).count <= 1)
        #expect(Self.answer("my first job", count: 5, turn: 2) == first)
    }

    /// A premium caller, as the authorizer's context reaches the function.
    static func event(topic: String) -> JSONValue {
        let body: JSONValue = ["topic": .string(topic), "count": 5]
        return [
            "httpMethod": "POST", "path": "/questions", "body": .string(body.jsonString),
            "requestContext": ["authorizer": ["principalId": "fresh", "userId": "fresh", "tier": "premium"]],
        ]
    }

    /// Asks `generateQuestions` each topic in turn, an hour apart, on a new table.
    static func ask(_ topics: [String]) async throws -> [[String]] {
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        let start = Timestamp(timeIntervalSince1970: 1_800_000_000)
        var answers: [[String]] = []
        for (index, topic) in topics.enumerated() {
            let instant = start.addingTimeInterval(Double(index) * 3_600)
            let function = GenerateQuestions(
                store: TableUsageStore(table: table, tableName: "inkra-usage"),
                generator: TemplateQuestionGenerator(seed: 1)
            )
            let response = try await function.handle(event(topic: topic), context: InvocationContext(time: instant))
            #expect(response["statusCode"] == 200, "\(response.jsonString)")
            let body = try JSONParser.parse(try #require(response["body"]?.string))
            answers.append(try #require(body["questions"]?.array).compactMap(\.string))
        }
        return answers
    }

    @Test("generateQuestions: one user asking again and again gets fresh questions, the same on a replay")
    func handlerTurns() async throws {
        let topics = Array(repeating: "my grandmother's garden", count: 6) + ["starting a bakery", "my first job"]
        let answers = try await Self.ask(topics)
        for (earlier, later) in zip(answers, answers.dropFirst()) {
            #expect(Set(later).count == 5)
            #expect(Set(earlier).isDisjoint(with: later), "\(earlier)\n\(later)")
        }
        #expect(answers[0].contains { $0.contains("your grandmother's garden") })
        #expect(try await Self.ask(topics) == answers)
    }
}
