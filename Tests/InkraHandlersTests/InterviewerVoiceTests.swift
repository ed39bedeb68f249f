import Foundation
import InkraHandlers
import Testing

/// A topic as people type it, the language asked for, and its quotations (kept as written).
struct SampleTopic: Sendable, CustomTestStringConvertible {
    var text: String
    var language: String?
    var quotations: [String] = []

    var testDescription: String { "\(language ?? "en"): \(text.prefix(60))" }

    /// Real-looking topics in the first person: names, questions, quotations, emoji, very short,
    /// and 500 characters.
    static let all: [SampleTopic] = [
        SampleTopic(text: "my grandmother's garden", language: nil),
        SampleTopic(text: "My first job.", language: "en-GB"),
        SampleTopic(text: "Me and my dad rebuilding a 1967 Mustang", language: nil),
        SampleTopic(text: "how I met my wife", language: nil),
        SampleTopic(text: "when I was a kid in Lagos", language: nil),
        SampleTopic(text: "why am I still afraid of the dark?", language: nil),
        SampleTopic(text: "I'm moving to Canada and I've never lived abroad", language: nil),
        SampleTopic(text: "what I'd tell myself at twenty, if I'll ever get the chance", language: nil),
        SampleTopic(text: "a friend of mine named Priya", language: nil),
        SampleTopic(text: "the summer we spent in Maine with our cousins", language: nil),
        SampleTopic(text: "Mom and I, and the garden we planted; it was ours", language: nil),
        SampleTopic(text: "our song, “Stand By Me”", language: nil, quotations: ["“Stand By Me”"]),
        SampleTopic(
            text: #"Grandpa always said "we'll manage" and we did"#, language: nil, quotations: [#""we'll manage""#]),
        SampleTopic(text: "I’ve never told anyone about ‘our secret’", language: nil, quotations: ["‘our secret’"]),
        SampleTopic(text: "the day Dad taught us to fish 🎣", language: nil),
        SampleTopic(text: "moving to the US with my parents", language: nil),
        SampleTopic(text: "The Year I Met My Wife", language: nil),
        SampleTopic(text: "the day I left. I was 17 and we'd no money", language: nil),
        SampleTopic(text: "me", language: nil),
        SampleTopic(text: "I", language: nil),
        SampleTopic(text: "us", language: nil),
        SampleTopic(text: "Us", language: nil),
        SampleTopic(text: long, language: nil),
        SampleTopic(text: "el jardín de mi abuela", language: "es"),
        SampleTopic(text: "Mi primer trabajo", language: "es-MX"),
        SampleTopic(text: "cuando yo era niña en Sevilla", language: "es"),
        SampleTopic(text: "nuestra casa en el campo y nosotros", language: "es"),
        SampleTopic(text: "lo que mi madre me enseñó", language: "es"),
        SampleTopic(
            text: "la canción «Mi Buenos Aires querido» y yo", language: "es", quotations: ["«Mi Buenos Aires querido»"]
        ),
        SampleTopic(text: "¿por qué mis primos nunca venían conmigo?", language: "es"),
        SampleTopic(text: "le jardin de ma grand-mère", language: "fr"),
        SampleTopic(text: "quand j'étais enfant à Lyon", language: "fr-CA"),
        SampleTopic(text: "Mon premier emploi", language: "fr"),
        SampleTopic(text: "nous habitions à Marseille avec nos grands-parents", language: "fr"),
        SampleTopic(text: "ce que ma mère m'a appris", language: "fr"),
        SampleTopic(
            text: "la chanson « Ne me quitte pas » et moi", language: "fr", quotations: ["« Ne me quitte pas »"]),
        SampleTopic(text: "der Garten meiner Großmutter", language: "de"),
        SampleTopic(text: "Mein erster Job", language: "de-AT"),
        SampleTopic(text: "wie wir uns kennengelernt haben", language: "de"),
        SampleTopic(text: "ich war Lehrerin in Leipzig", language: "de"),
        SampleTopic(text: "unsere Reise nach Italien, mit mir am Steuer", language: "de"),
        SampleTopic(
            text: "das Lied „Ich war noch niemals in New York“", language: "de",
            quotations: ["„Ich war noch niemals in New York“"]),
    ]

    /// 500 characters of one person's memories.
    static let long: String = {
        let sentence = "I remember my mother's kitchen, where we baked bread every Sunday and I learned patience. "
        let text = String(String(repeating: sentence, count: 6).prefix(500))
        precondition(text.count == 500)
        return text
    }()
}

@Suite("Questions speak to the interviewee: the topic in the interviewer's voice")
struct InterviewerVoiceTests {
    /// The first-person words of each language the bank speaks, in lower case.
    static let firstPerson: [String: Set<String>] = [
        "en": [
            "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "i'm", "i've", "i'd", "i'll",
            "we're", "we've", "we'd", "we'll",
        ],
        "es": [
            "yo", "me", "mí", "mi", "mis", "conmigo", "mío", "mía", "míos", "mías", "nosotros", "nosotras", "nos",
            "nuestro", "nuestra", "nuestros", "nuestras",
        ],
        "fr": [
            "je", "me", "moi", "mon", "ma", "mes", "mien", "mienne", "miens", "miennes", "nous", "notre", "nos",
            "nôtre", "nôtres", "moi-même", "nous-mêmes",
        ],
        "de": [
            "ich", "mich", "mir", "mein", "meine", "meinen", "meinem", "meiner", "meines", "meins", "wir", "uns",
            "unser", "unsere", "unseren", "unserem", "unserer", "unseres",
        ],
    ]

    /// The bank's own "younger self" ("tu yo más joven", "Ihrem jüngeren Ich"): a noun, not a pronoun.
    static let selfNouns = ["tu yo", "jüngeren Ich"]

    /// The words of a text outside the given quotations, apostrophes made straight; a word in
    /// capitals (an acronym such as US) is left out.
    static func words(_ text: String, outside quotations: [String]) -> [String] {
        var text = text
        for quotation in quotations + selfNouns { text = text.replacingOccurrences(of: quotation, with: " ") }
        let words = text.replacingOccurrences(of: "’", with: "'")
            .split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "-" })
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'-")) }
        return words.filter { word in !(word.count > 1 && word == word.uppercased()) }.map { $0.lowercased() }
    }

    static func language(_ tag: String?) -> String {
        String((tag ?? "en").prefix(2))
    }

    @Test("No first-person word of the topic is left outside quotations", arguments: SampleTopic.all)
    func noFirstPerson(topic: SampleTopic) throws {
        let language = Self.language(topic.language)
        let firstPerson = try #require(Self.firstPerson[language])
        for turn in 0..<4 {
            let questions = TemplateQuestionGenerator(seed: 3).questions(
                QuestionRequest(topic: topic.text, count: 20, length: .long, language: topic.language, turn: turn))
            #expect(questions.count == 20)
            for question in questions {
                let left = Self.words(question, outside: topic.quotations).filter { word in
                    firstPerson.contains(word) || (language == "fr" && (word.hasPrefix("j'") || word.hasPrefix("m'")))
                }
                #expect(left.isEmpty, "\(left) in: \(question)")
            }
            for quotation in topic.quotations {
                #expect(questions.contains { $0.contains(quotation) }, "\(quotation) is kept as written")
            }
        }
    }

    /// Topics and how they read inside a question.
    static let rewrites: [(language: String?, topic: String, voiced: String)] = [
        (nil, "my grandmother's garden", "your grandmother's garden"),
        (nil, "My first job.", "your first job"),
        (nil, "Me and my dad rebuilding a 1967 Mustang", "you and your dad rebuilding a 1967 Mustang"),
        (nil, "when I was a kid in Lagos", "when you were a kid in Lagos"),
        (nil, "why am I still afraid of the dark?", "why are you still afraid of the dark"),
        (
            nil, "I'm moving to Canada and I've never lived abroad",
            "you're moving to Canada and you've never lived abroad"
        ),
        (nil, "I’ve never told anyone about ‘our secret’", "you’ve never told anyone about ‘our secret’"),
        (nil, "what I'd tell myself at twenty", "what you'd tell yourself at twenty"),
        (nil, "a friend of mine named Priya", "a friend of yours named Priya"),
        (nil, "the coal mine my grandfather worked in", "the coal mine your grandfather worked in"),
        (nil, "the summer we spent in Maine with our cousins", "the summer you spent in Maine with your cousins"),
        (nil, "ourselves, after the flood", "yourselves, after the flood"),
        (nil, "our song, “Stand By Me”", "your song, “Stand By Me”"),
        (nil, #"Grandpa always said "we'll manage" and we did"#, #"Grandpa always said "we'll manage" and you did"#),
        (nil, "moving to the US with my parents", "moving to the US with your parents"),
        (nil, "visiting Our Lady of Guadalupe with my abuela", "visiting Our Lady of Guadalupe with your abuela"),
        (nil, "my grandfather's letters from World War I", "your grandfather's letters from World War I"),
        (nil, "the day I left. I was 17", "the day you left. You were 17"),
        (nil, "The Year I Met My Wife", "the Year You Met Your Wife"),
        (nil, "me", "you"),
        ("es", "el jardín de mi abuela", "el jardín de tu abuela"),
        ("es", "Mi primer trabajo", "tu primer trabajo"),
        ("es", "cuando yo era niña en Sevilla", "cuando tú eras niña en Sevilla"),
        ("es", "nuestra casa en el campo", "vuestra casa en el campo"),
        ("es", "lo que mi madre me enseñó", "lo que tu madre te enseñó"),
        ("es", "la canción «Mi Buenos Aires querido» y yo", "la canción «Mi Buenos Aires querido» y tú"),
        ("es", "los veranos de mis primos conmigo", "los veranos de tus primos contigo"),
        ("es", "cuando nosotros éramos jóvenes", "cuando vosotros erais jóvenes"),
        ("fr", "le jardin de ma grand-mère", "le jardin de votre grand-mère"),
        ("fr", "quand j'étais enfant à Lyon", "quand vous étiez enfant à Lyon"),
        ("fr", "Mon premier emploi", "votre premier emploi"),
        ("fr", "nous habitions à Marseille", "vous habitiez à Marseille"),
        ("fr", "ce que ma mère m'a appris", "ce que votre mère vous a appris"),
        ("fr", "la chanson « Ne me quitte pas » et moi", "la chanson « Ne me quitte pas » et vous"),
        ("fr", "les chansons nous rappellent l'été", "les chansons vous rappellent l'été"),
        ("de", "der Garten meiner Großmutter", "der Garten Ihrer Großmutter"),
        ("de", "Mein erster Job", "Ihr erster Job"),
        ("de", "wie wir uns kennengelernt haben", "wie Sie sich kennengelernt haben"),
        ("de", "ein Sommer mit uns", "ein Sommer mit Ihnen"),
        ("de", "ein Geschenk für uns", "ein Geschenk für Sie"),
        ("de", "ich war Lehrerin in Leipzig", "Sie waren Lehrerin in Leipzig"),
        ("de", "das Lied „Ich war noch niemals in New York“", "das Lied „Ich war noch niemals in New York“"),
    ]

    @Test("First person becomes second, names and quotations stay, case follows the sentence")
    func rewritten() {
        for (language, topic, voiced) in Self.rewrites {
            let questions = TemplateQuestionGenerator(seed: 1).questions(
                QuestionRequest(topic: topic, count: 20, length: .long, language: language))
            let filled = questions.filter { $0.contains(voiced) }
            #expect(filled.count >= 5, "\(language ?? "en"): \(topic) → \(voiced): \(questions.prefix(3))")
        }
    }

    @Test("The question bank itself never speaks in the first person")
    func bankInSecondPerson() throws {
        for language in ["en", "es", "fr", "de"] {
            let firstPerson = try #require(Self.firstPerson[language])
            for turn in 0..<2 {
                let questions = TemplateQuestionGenerator().questions(
                    QuestionRequest(topic: "x", count: 20, length: .long, language: language, turn: turn))
                for question in questions {
                    let left = Self.words(question, outside: []).filter(firstPerson.contains)
                    #expect(left.isEmpty, "\(left) in: \(question)")
                }
            }
        }
    }
}
