/// Interview question templates by language and category. `{topic}` is replaced with the topic;
/// some templates leave it out on purpose, so a long topic does not weigh on every question.
struct QuestionBank: Sendable {
    /// The templates of each category in `QuestionCategory.allCases` order.
    let pools: [[String]]

    init(templates: [QuestionCategory: [String]]) {
        pools = QuestionCategory.allCases.map { templates[$0] ?? [] }
    }

    /// The bank for a language tag's primary subtag; English when there is none for it.
    static func forLanguage(_ tag: String?) -> QuestionBank {
        let primary = tag?.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() }
        switch primary {
        case "es": return spanish
        case "fr": return french
        case "de": return german
        default: return english
        }
    }

    static let english = QuestionBank(templates: [
        .opening: [
            "When you think back to the very beginning of {topic}, what is the first picture that comes to mind?",
            "How would you describe {topic} to someone who has never heard of it?",
            "How did {topic} first come into your life?",
            "If you had to begin the story of {topic} somewhere, where would you start?",
            "What was happening in your life just before {topic} began?",
            "Who was the first person you talked to about {topic}?",
            "What do you remember about the place where {topic} started?",
            "What drew you to {topic} in the first place?",
            "What is a small detail about {topic} that you have never forgotten?",
            "How old were you when {topic} started, and what were you like then?",
            "What did an ordinary day look like during {topic}?",
            "Before any of this began, what did you expect {topic} would be like?",
        ],
        .background: [
            "Who were the most important people around you during {topic}?",
            "What did your family think about {topic} at the time?",
            "Where were you living then, and what was that place like?",
            "What did you have to learn or give up to make {topic} possible?",
            "Which traditions or habits shaped the way you approached {topic}?",
            "What was going on in the wider world while this was happening?",
            "Who taught you the most along the way, and what did they teach you?",
            "What did you know about {topic} before you were in the middle of it?",
            "What resources did you have, and what did you have to do without?",
            "How did the people closest to you take part in {topic}?",
            "What sounds, smells or objects do you connect with that time?",
            "What was expected of you back then, and by whom?",
        ],
        .turningPoints: [
            "What was the moment when everything about {topic} changed?",
            "Was there a decision during {topic} that you still think about?",
            "What was the hardest day you remember, and how did you get through it?",
            "When did you realise that {topic} would matter this much to you?",
            "Was there a time you almost gave up? What kept you going?",
            "Which surprise along the way changed your plans the most?",
            "Who showed up at exactly the right moment, and what did they do?",
            "What is something that went wrong and turned out to be a gift?",
            "If you could relive one day from {topic}, which would it be and why?",
            "When did things start to feel different from how they began?",
            "What risk did you take that others might not have taken?",
            "Which conversation turned out to be a turning point?",
        ],
        .feelings: [
            "How did {topic} make you feel at the time, and has that feeling changed?",
            "What moment from {topic} still makes you smile?",
            "What were you most afraid of back then?",
            "When did you feel proudest during {topic}?",
            "Was there a moment you felt completely alone? What was that like?",
            "What do you miss most about that time?",
            "How did you celebrate the good days?",
            "What did you keep to yourself that you might share now?",
            "Which part of {topic} was harder than people around you realised?",
            "If that time had a colour or a song, what would it be?",
            "When did you feel most like yourself during {topic}?",
            "What is a feeling from that period that you have never put into words?",
        ],
        .lessons: [
            "What did {topic} teach you about yourself?",
            "What would you tell your younger self at the start of {topic}?",
            "Which mistake taught you the most?",
            "What do you understand now that you did not understand then?",
            "How has {topic} changed the way you treat other people?",
            "What advice would you give someone about to go through something similar?",
            "Which of your strengths did you discover along the way?",
            "What would you do differently if you could start again?",
            "What did that time teach you about patience, or about letting go?",
            "Which lesson from {topic} do you still use today?",
            "What did you learn about the people you love?",
            "Looking back, what are you most grateful for?",
        ],
        .future: [
            "How do you hope {topic} will be remembered by the next generation?",
            "What part of {topic} would you like to pass on, and to whom?",
            "What still feels unfinished about {topic}?",
            "Where do you see {topic} going in the next few years?",
            "If someone listens to this recording in fifty years, what do you want them to know?",
            "What are you looking forward to now?",
            "What question about {topic} do you still wish you could answer?",
            "How would you like your own part in this story to be told?",
            "What would you like to try next that {topic} made possible?",
            "What hope are you carrying forward from that time?",
            "If you could add one more chapter to this story, what would it be?",
            "What do you want the people you love to take from your story?",
        ],
    ])
}
