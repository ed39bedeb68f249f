/// The word tables, one per language of the question bank, each in the bank's register: English
/// "you"; Spanish "tú" (and "vosotros" for a plural); French and German the polite "vous" and "Sie".
/// Pronouns and possessives change; a verb changes only when it stands next to its subject and
/// the table names it, so a topic is best written as a noun phrase ("my first job").
extension InterviewerVoice {
    /// The voice for a language tag's primary subtag; English when the bank has no other for it.
    static func forLanguage(_ tag: String?) -> InterviewerVoice {
        let primary = tag?.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() }
        switch primary {
        case "es": return spanish
        case "fr": return french
        case "de": return german
        default: return english
        }
    }

    static let english = InterviewerVoice(
        words: [
            "i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
            "we": "you", "us": "you", "our": "your", "ours": "yours", "ourselves": "yourselves", "ourself": "yourself",
            "i'm": "you're", "i've": "you've", "i'd": "you'd", "i'll": "you'll",
            "we're": "you're", "we've": "you've", "we'd": "you'd", "we'll": "you'll",
        ],
        alwaysCapitalized: ["i", "i'm", "i've", "i'd", "i'll"],
        verbs: ["i": ["am": "are", "was": "were", "wasn't": "weren't"]],
        onlyAfter: ["mine": ["of", "is", "was", "were", "are", "be", "been", "and", "or", "not"]],
        numerals: [
            "i": [
                "War", "Part", "Chapter", "Act", "Book", "Volume", "Phase", "Stage", "Season", "Level", "Grade",
                "Class", "Type", "Title", "Section", "Round", "Episode",
            ]
        ]
    )

    static let spanish = InterviewerVoice(
        words: [
            "yo": "tú", "me": "te", "mí": "ti", "conmigo": "contigo", "mi": "tu", "mis": "tus",
            "mío": "tuyo", "mía": "tuya", "míos": "tuyos", "mías": "tuyas",
            "nosotros": "vosotros", "nosotras": "vosotras", "nos": "os",
            "nuestro": "vuestro", "nuestra": "vuestra", "nuestros": "vuestros", "nuestras": "vuestras",
        ],
        verbs: [
            "yo": [
                "soy": "eres", "estoy": "estás", "era": "eras", "estaba": "estabas", "fui": "fuiste",
                "tengo": "tienes", "tenía": "tenías",
            ],
            "nosotros": pluralSpanishVerbs, "nosotras": pluralSpanishVerbs,
        ]
    )

    private static let pluralSpanishVerbs = [
        "somos": "sois", "éramos": "erais", "estamos": "estáis", "estábamos": "estabais", "fuimos": "fuisteis",
        "tenemos": "tenéis", "teníamos": "teníais",
    ]

    static let french = InterviewerVoice(
        words: [
            "je": "vous", "me": "vous", "moi": "vous", "moi-même": "vous-même",
            "mon": "votre", "ma": "votre", "mes": "vos",
            "mien": "vôtre", "mienne": "vôtre", "miens": "vôtres", "miennes": "vôtres",
            "nous": "vous", "nous-mêmes": "vous-mêmes", "notre": "votre", "nos": "vos", "nôtre": "vôtre",
            "nôtres": "vôtres",
        ],
        verbs: [
            "je": [
                "suis": "êtes", "étais": "étiez", "ai": "avez", "avais": "aviez", "vais": "allez", "allais": "alliez",
                "fais": "faites", "faisais": "faisiez", "serai": "serez",
            ],
            "nous": ["sommes": "êtes", "faisons": "faites"],
        ],
        verbEndings: ["nous": (ending: "ons", replacement: "ez")],
        elisions: ["j'": "je", "m'": "me"]
    )

    static let german = InterviewerVoice(
        words: [
            "ich": "Sie", "mich": "Sie", "mir": "Ihnen",
            "mein": "Ihr", "meine": "Ihre", "meinen": "Ihren", "meinem": "Ihrem", "meiner": "Ihrer",
            "meines": "Ihres", "meins": "Ihres",
            "wir": "Sie", "uns": "Ihnen",
            "unser": "Ihr", "unsere": "Ihre", "unseren": "Ihren", "unserem": "Ihrem", "unserer": "Ihrer",
            "unseres": "Ihres",
        ],
        verbs: [
            "ich": [
                "bin": "sind", "war": "waren", "habe": "haben", "hatte": "hatten", "wurde": "wurden",
                "werde": "werden", "kann": "können", "konnte": "konnten", "muss": "müssen", "musste": "mussten",
                "will": "wollen", "wollte": "wollten", "möchte": "möchten", "weiß": "wissen",
            ]
        ],
        afterWords: ["uns": (previous: ["für", "durch", "gegen", "ohne", "um"], replacement: "Sie")],
        reflexives: [
            "mich": (subjects: ["ich"], replacement: "sich"), "mir": (subjects: ["ich"], replacement: "sich"),
            "uns": (subjects: ["wir"], replacement: "sich"),
        ]
    )
}
