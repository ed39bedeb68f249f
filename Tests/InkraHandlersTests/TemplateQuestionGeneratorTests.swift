import Foundation
import InkraHandlers
import Testing

@Suite("The offline question generator")
struct TemplateQuestionGeneratorTests {
    func generate(
        _ topic: String = "my grandmother's childhood in Naples",
        count: Int = 5,
        length: QuestionLength = .medium,
        language: String? = nil,
        seed: UInt64 = 1,
        turn: Int = 0
    ) -> [String] {
        TemplateQuestionGenerator(seed: seed).questions(
            QuestionRequest(topic: topic, count: count, length: length, language: language, turn: turn)
        )
    }

    @Test("Deterministic for a topic, count and seed; another seed gives another interview")
    func determinism() {
        #expect(generate() == generate())
        let others = (2...6).map { generate(seed: $0) }
        #expect(others.contains { $0 != generate() })
        #expect(generate("learning to sail") != generate())
    }

    @Test("The same request and seed give the same questions from one release to the next")
    func stableAcrossReleases() {
        #expect(
            generate() == [
                "What do you remember about the place where your grandmother's childhood in Naples started?",
                "What was expected of you back then, and by whom?",
                "Who showed up at exactly the right moment, and what did they do?",
                "How did your grandmother's childhood in Naples make you feel at the time, and has that feeling changed?",
                "What do you want the people you love to take from your story?",
            ])
        // Every count, length, language and a few turns over a few seeds, folded into one FNV-1a digest.
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for seed: UInt64 in 0...3 {
            for language in [nil, "es", "fr", "de"] {
                for length in QuestionLength.allCases {
                    for (count, turn) in (1...20).flatMap({ count in (0...2).map { (count, $0) } }) {
                        let text = generate(
                            "learning to sail", count: count, length: length, language: language, seed: seed,
                            turn: turn
                        )
                        .joined(separator: "\n")
                        for byte in text.utf8 {
                            digest ^= UInt64(byte)
                            digest &*= 0x100_0000_01b3
                        }
                    }
                }
            }
        }
        #expect(digest == 9_020_662_313_076_529_888)
    }

    @Test(
        "A topic goes in as it is written, braces, accents and emoji included",
        arguments: ["the {topic} of {", "{", "naïve café in Zürich 🍝", "x"]
    )
    func topicsAsWritten(topic: String) {
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for seed: UInt64 in 0...7 {
            for language in [nil, "es", "fr", "de"] {
                let questions = generate(topic, count: 20, length: .long, language: language, seed: seed)
                for question in questions {
                    let rest = question.replacingOccurrences(of: topic, with: "")
                    #expect(!rest.contains("{"), "\(question)")
                    for byte in question.utf8 {
                        digest ^= UInt64(byte)
                        digest &*= 0x100_0000_01b3
                    }
                }
                #expect(questions.filter { $0.contains(topic) }.count >= 5)
            }
        }
        #expect(digest == Self.topicDigests[topic])
    }

    /// The questions of `topicsAsWritten`, folded (FNV-1a), as the generator gave them when it
    /// first drew each turn from its half of the bank.
    static let topicDigests: [String: UInt64] = [
        "the {topic} of {": 4_354_503_048_557_574_646, "{": 5_209_344_439_243_681_020,
        "naïve café in Zürich 🍝": 13_558_356_390_557_329_416, "x": 1_138_001_020_796_352_886,
    ]

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
        #expect(questions.contains { $0.contains("your first job") })
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
