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

    @Test("The same request and seed give the same questions from one release to the next")
    func stableAcrossReleases() {
        #expect(
            generate() == [
                "What was happening in your life just before my grandmother's childhood in Naples began?",
                "Which traditions or habits shaped the way you approached my grandmother's childhood in Naples?",
                "Who showed up at exactly the right moment, and what did they do?",
                "When did you feel most like yourself during my grandmother's childhood in Naples?",
                "What did my grandmother's childhood in Naples teach you about yourself?",
            ])
        // Every count, length and language over a few seeds, folded into one FNV-1a digest.
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for seed: UInt64 in 0...3 {
            for language in [nil, "es", "fr", "de"] {
                for length in QuestionLength.allCases {
                    for count in 1...20 {
                        let text = generate(
                            "learning to sail", count: count, length: length, language: language, seed: seed
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
        #expect(digest == 12_290_217_751_041_173_766)
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
    /// still shuffled the templates themselves and filled them a byte at a time.
    static let topicDigests: [String: UInt64] = [
        "the {topic} of {": 1_520_248_705_040_682_890, "{": 4_251_290_089_329_406_395,
        "naïve café in Zürich 🍝": 15_707_229_341_666_989_368, "x": 4_570_726_812_284_975_897,
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
