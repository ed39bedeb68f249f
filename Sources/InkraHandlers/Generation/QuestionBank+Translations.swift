extension QuestionBank {
    static let spanish = QuestionBank(templates: [
        .opening: [
            "Cuando piensas en el comienzo de {topic}, ¿qué imagen te viene primero a la mente?",
            "¿Cómo llegó {topic} a tu vida?",
            "¿Qué estaba pasando en tu vida justo antes de {topic}?",
            "¿Qué te atrajo de {topic} al principio?",
            "¿Cómo era un día normal durante {topic}?",
        ],
        .background: [
            "¿Quiénes fueron las personas más importantes para ti durante {topic}?",
            "¿Qué pensaba tu familia de {topic} en aquel momento?",
            "¿Dónde vivías entonces y cómo era ese lugar?",
            "¿Quién te enseñó más en el camino y qué te enseñó?",
            "¿Qué sonidos, olores u objetos relacionas con esa época?",
        ],
        .turningPoints: [
            "¿En qué momento cambió todo en {topic}?",
            "¿Hubo una decisión durante {topic} en la que todavía piensas?",
            "¿Cuál fue el día más difícil que recuerdas y cómo lo superaste?",
            "¿Hubo un momento en que casi te rendiste? ¿Qué te hizo seguir?",
            "¿Qué sorpresa en el camino cambió más tus planes?",
        ],
        .feelings: [
            "¿Cómo te hizo sentir {topic} en su momento, y ha cambiado ese sentimiento?",
            "¿Qué momento de {topic} todavía te hace sonreír?",
            "¿Qué era lo que más temías entonces?",
            "¿Cuándo te sentiste más orgulloso o más orgullosa?",
            "¿Qué es lo que más echas de menos de aquella época?",
        ],
        .lessons: [
            "¿Qué te enseñó {topic} sobre ti?",
            "¿Qué le dirías a tu yo más joven al comienzo de {topic}?",
            "¿Qué error te enseñó más?",
            "¿Qué consejo le darías a alguien que está por vivir algo parecido?",
            "Mirando atrás, ¿de qué estás más agradecido o agradecida?",
        ],
        .future: [
            "¿Cómo te gustaría que la próxima generación recordara {topic}?",
            "¿Qué parte de {topic} te gustaría transmitir, y a quién?",
            "Si alguien escucha esta grabación dentro de cincuenta años, ¿qué quieres que sepa?",
            "¿Qué sigue sin terminar en {topic}?",
            "¿Qué esperanza te llevas de esa época?",
        ],
    ])

    static let french = QuestionBank(templates: [
        .opening: [
            "Quand vous repensez au tout début de {topic}, quelle image vous vient en premier ?",
            "Comment {topic} est-il entré dans votre vie ?",
            "Que se passait-il dans votre vie juste avant {topic} ?",
            "Qu'est-ce qui vous a attiré vers {topic} au départ ?",
            "À quoi ressemblait une journée ordinaire pendant {topic} ?",
        ],
        .background: [
            "Qui étaient les personnes les plus importantes autour de vous pendant {topic} ?",
            "Qu'en pensait votre famille à l'époque ?",
            "Où viviez-vous alors, et à quoi ressemblait cet endroit ?",
            "Qui vous a le plus appris en chemin, et qu'est-ce qu'il vous a appris ?",
            "Quels sons, odeurs ou objets associez-vous à cette époque ?",
        ],
        .turningPoints: [
            "À quel moment tout a-t-il basculé dans {topic} ?",
            "Y a-t-il une décision prise pendant {topic} à laquelle vous pensez encore ?",
            "Quel a été le jour le plus difficile, et comment l'avez-vous traversé ?",
            "Avez-vous failli abandonner ? Qu'est-ce qui vous a fait continuer ?",
            "Quelle surprise a le plus changé vos projets ?",
        ],
        .feelings: [
            "Que ressentiez-vous pendant {topic}, et ce sentiment a-t-il changé ?",
            "Quel moment de {topic} vous fait encore sourire ?",
            "De quoi aviez-vous le plus peur à l'époque ?",
            "Quand vous êtes-vous senti le plus fier ?",
            "Qu'est-ce qui vous manque le plus de cette période ?",
        ],
        .lessons: [
            "Qu'est-ce que {topic} vous a appris sur vous-même ?",
            "Que diriez-vous à la personne que vous étiez au début de {topic} ?",
            "Quelle erreur vous a le plus appris ?",
            "Quel conseil donneriez-vous à quelqu'un qui s'apprête à vivre la même chose ?",
            "Avec le recul, de quoi êtes-vous le plus reconnaissant ?",
        ],
        .future: [
            "Comment aimeriez-vous que la prochaine génération se souvienne de {topic} ?",
            "Quelle part de {topic} aimeriez-vous transmettre, et à qui ?",
            "Si quelqu'un écoute cet enregistrement dans cinquante ans, que voulez-vous qu'il sache ?",
            "Qu'est-ce qui reste inachevé dans {topic} ?",
            "Quel espoir gardez-vous de cette époque ?",
        ],
    ])

    static let german = QuestionBank(templates: [
        .opening: [
            "Wenn Sie an den Anfang von {topic} denken, welches Bild kommt Ihnen zuerst in den Sinn?",
            "Wie ist {topic} in Ihr Leben gekommen?",
            "Was war in Ihrem Leben los, kurz bevor {topic} begann?",
            "Was hat Sie am Anfang an {topic} gereizt?",
            "Wie sah ein ganz normaler Tag während {topic} aus?",
        ],
        .background: [
            "Wer waren während {topic} die wichtigsten Menschen um Sie herum?",
            "Was hielt Ihre Familie damals davon?",
            "Wo haben Sie damals gelebt, und wie war dieser Ort?",
            "Wer hat Ihnen auf dem Weg am meisten beigebracht, und was?",
            "Welche Geräusche, Gerüche oder Gegenstände verbinden Sie mit dieser Zeit?",
        ],
        .turningPoints: [
            "In welchem Moment hat sich bei {topic} alles verändert?",
            "Gibt es eine Entscheidung aus dieser Zeit, über die Sie noch nachdenken?",
            "Was war der schwierigste Tag, und wie haben Sie ihn überstanden?",
            "Gab es einen Moment, in dem Sie fast aufgegeben hätten? Was hat Sie weitermachen lassen?",
            "Welche Überraschung hat Ihre Pläne am meisten verändert?",
        ],
        .feelings: [
            "Wie hat sich {topic} damals angefühlt, und hat sich dieses Gefühl verändert?",
            "Welcher Moment aus {topic} bringt Sie heute noch zum Lächeln?",
            "Wovor hatten Sie damals am meisten Angst?",
            "Wann waren Sie am stolzesten?",
            "Was vermissen Sie an dieser Zeit am meisten?",
        ],
        .lessons: [
            "Was hat {topic} Sie über sich selbst gelehrt?",
            "Was würden Sie Ihrem jüngeren Ich zu Beginn von {topic} sagen?",
            "Aus welchem Fehler haben Sie am meisten gelernt?",
            "Welchen Rat würden Sie jemandem geben, der etwas Ähnliches vor sich hat?",
            "Wofür sind Sie im Rückblick am dankbarsten?",
        ],
        .future: [
            "Wie soll die nächste Generation sich an {topic} erinnern?",
            "Welchen Teil von {topic} möchten Sie weitergeben, und an wen?",
            "Wenn jemand diese Aufnahme in fünfzig Jahren hört, was soll er wissen?",
            "Was ist an {topic} noch unvollendet?",
            "Welche Hoffnung nehmen Sie aus dieser Zeit mit?",
        ],
    ])
}
