import InkraHandlers
import Testing

@Suite("The offline question generator")
struct TemplateQuestionGeneratorTests {
    func generate(
        _ topic: String = "my grandmother's childhood in Naples",
        count: Int = 5,
        length: QuestionLength = .medium,
        language: String? = nil,
        seed: UInt64 = 1
    ) -> [String] {
        TemplateQuestionGenerator(seed: seed).questions(
            QuestionRequest(topic: topic, count: count, length: length, language: language)
        )
    }

    @Test("Deterministic for a topic, count and seed; another seed gives another interview")
    func determinism() {
        #expect(generate() == generate())
        let others = (2...6).map { generate(seed: $0) }
        #expect(others.contains { $0 != generate() })
        #expect(generate("learning to sail") != generate())
    }

    @Test(
        "Every count from 1 to 20 gives that many distinct questions, in every language",
        arguments: [nil, "es", "fr-CA", "de", "ja"])
    func counts(language: String?) {
        for count in 1...20 {
            for length in QuestionLength.allCases {
                let questions = generate(count: count, length: length, language: language)
                #expect(questions.count == count)
                #expect(Set(questions).count == count, "duplicates for count \(count)")
                #expect(questions.allSatisfy { !$0.isEmpty && $0.hasSuffix("?") && !$0.contains("{topic}") })
            }
        }
    }

    @Test("The interview opens with an opening question and closes with lessons or the future")
    func arc() {
        let bank = QuestionCategory.allCases
        #expect(bank.first == .opening)
        for seed in UInt64(0)..<20 {
            let questions = generate("starting a bakery", count: 6, seed: seed)
            #expect(questions.contains { $0.contains("starting a bakery") })
            #expect(!questions.contains { $0.lowercased().hasPrefix("question 1") })
        }
    }

    @Test("Topics are tidied for reading inside a question")
    func topics() {
        let questions = generate("  My first job.  ", count: 20)
        #expect(questions.contains { $0.contains("my first job") })
        #expect(!questions.contains { $0.contains("job.") })
        let acronym = generate("NASA internships", count: 20)
        #expect(acronym.contains { $0.contains("NASA internships") })
        let long = generate(String(repeating: "very long topic ", count: 31), count: 8)
        #expect(long.count == 8)
    }

    @Test("Spanish questions are Spanish")
    func spanish() {
        let questions = generate("aprender a navegar", count: 10, language: "es-MX")
        #expect(questions.allSatisfy { $0.contains("¿") })
    }
}
