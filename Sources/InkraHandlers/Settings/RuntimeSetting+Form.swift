import HTTPText
import InkraAuth

/// Each setting's form, default and readers: what `bootstrap`'s `Configuration` checks a value
/// against, the error that says what a setting accepts, the value an unset setting reads as, and
/// docs/configuration.md's columns (held to them by a test).
extension RuntimeSetting {
    /// The functions a setting is for, as docs/configuration.md's "read by" column names them.
    package enum Readers: Sendable, Hashable {
        /// Every function.
        case all
        /// The functions with a usage store: `checkUsage`, `generateQuestions`, `deleteAccount`,
        /// `repairCharges`.
        case store
        /// The functions with a usage store, and every other function while it records
        /// (`INKRA_RECORD_EVENTS`): the server's secret keys recordings' pseudonyms.
        case storeOrRecording
        /// Only these (by `_HANDLER`'s name).
        case only([String])
    }

    /// What a setting's value may be: how it is checked, and how its error says what it accepts.
    package enum Form: Sendable, Hashable {
        /// One of these words, in any case.
        case choice([String])
        /// A number of seconds in a range; `open` excludes the lower bound.
        case seconds(from: Double, to: Double, open: Bool)
        /// A DynamoDB table name.
        case tableName
        /// An `http` or `https` URL with a host.
        case httpURL
        /// An absolute URL (a scheme and a host).
        case absoluteURL
        /// Any text (a name, a path, JSON checked later, a key).
        case text
    }

    /// A checked value.
    package enum Value: Sendable, Hashable {
        /// A word of a ``Form/choice(_:)``, spelt as the list spells it.
        case word(String)
        /// Seconds.
        case seconds(Double)
        /// Text, or a URL's text.
        case text(String)
        /// A URL.
        case url(HTTPURL)

        /// The word or the text.
        package var text: String? {
            switch self {
            case .word(let text), .text(let text): text
            case .url(let url): url.absoluteString
            case .seconds: nil
            }
        }
        /// The seconds.
        package var seconds: Double? {
            guard case .seconds(let seconds) = self else { return nil }
            return seconds
        }
        /// The URL.
        package var url: HTTPURL? {
            guard case .url(let url) = self else { return nil }
            return url
        }
    }

    /// The form of this setting's value.
    package var form: Form {
        switch self {
        case .clock: .choice(["system", "request-time"])
        case .clockSkew: .seconds(from: 0, to: 3600, open: false)
        case .cognitoIssuer: .choice(["ORIGINAL", "UPDATED"])
        case .deleteCognitoUser: .choice(["true", "false"])
        case .gatewayTimeout: .seconds(from: 2, to: 900, open: false)
        case .limitsMaxAge: .seconds(from: 1, to: 86_400, open: false)
        case .modelBaseURL: .httpURL
        case .modelTimeout: .seconds(from: 0, to: 120, open: true)
        case .recordEvents: .choice(["1", "0", "true", "false"])
        case .store: .choice(["memory", "dynamodb"])
        case .tableName: .tableName
        case .tokenUse: .choice(["access", "id", "any"])
        case .upgradeURL: .absoluteURL
        case .jwksFile, .limits, .limitsFile, .limitsParameter, .modelAPIKey, .modelAPIKeySecretARN, .model,
            .serverSecret, .serverSecretARN:
            .text
        }
    }

    /// The value used when the setting is unset, as docs/configuration.md's "default" column gives
    /// it; `nil` when unset means none (or a rule of its own, such as `INKRA_STORE` inside Lambda).
    package var defaultValue: String? {
        switch self {
        case .clock: "system"
        case .clockSkew: String(Int(CognitoConfiguration.defaultClockTolerance))
        case .gatewayTimeout: "29"
        case .limitsMaxAge: "60"
        case .modelTimeout: "20"
        case .recordEvents: "0"
        case .tableName: "inkra-usage"
        case .tokenUse: "id"
        case .upgradeURL: "https://inkra.app/premium"
        case .cognitoIssuer, .deleteCognitoUser, .jwksFile, .limits, .limitsFile, .limitsParameter, .modelAPIKey,
            .modelAPIKeySecretARN, .modelBaseURL, .model, .serverSecret, .serverSecretARN, .store:
            nil
        }
    }

    /// The functions that read this setting.
    package var readBy: Readers {
        switch self {
        case .clock, .gatewayTimeout, .limits, .limitsFile, .limitsMaxAge, .limitsParameter, .recordEvents: .all
        case .store, .tableName: .store
        case .serverSecret, .serverSecretARN: .storeOrRecording
        case .clockSkew, .cognitoIssuer, .jwksFile, .tokenUse: .only(["authorizer"])
        case .deleteCognitoUser: .only(["deleteAccount"])
        case .modelAPIKey, .modelAPIKeySecretARN, .modelBaseURL, .model, .modelTimeout, .upgradeURL:
            .only(["generateQuestions"])
        }
    }

    /// Whether an empty value is the only unset one: the model's settings keep spaces as theirs;
    /// the others also count a value of only spaces and tabs as unset.
    package var keepsSpaces: Bool {
        switch self {
        case .modelAPIKey, .modelAPIKeySecretARN, .modelBaseURL, .model, .modelTimeout, .serverSecret: true
        default: false
        }
    }

    /// What the setting accepts, for its error and docs: "memory or dynamodb".
    package var accepts: String {
        switch form {
        case .choice(let words):
            if self == .recordEvents { return "1 or 0 (true or false)" }
            return Self.list(words)
        case .seconds(let from, let to, let open):
            let low = Self.number(from)
            let high = Self.number(to)
            return open
                ? "a number of seconds more than \(low) and at most \(high)"
                : "a number of seconds from \(low) to \(high)"
        case .tableName: return "3–255 characters of letters, digits, '_', '-' and '.'"
        case .httpURL: return "an http or https URL"
        case .absoluteURL: return "an absolute URL"
        case .text: return "any text"
        }
    }

    /// `text` checked against ``form``, or `nil` when it does not fit.
    package func value(of text: String) -> Value? {
        switch form {
        case .choice(let words):
            return words.first { $0.lowercased() == text.lowercased() }.map(Value.word)
        case .seconds(let from, let to, let open):
            guard let seconds = Double(text), seconds.isFinite, open ? seconds > from : seconds >= from, seconds <= to
            else { return nil }
            return .seconds(seconds)
        case .tableName:
            let allowed = text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || "_-.".unicodeScalars.contains($0)
            }
            return (3...255).contains(text.count) && allowed ? .text(text) : nil
        case .httpURL:
            guard let url = HTTPURL(string: text), ["http", "https"].contains(url.scheme) else { return nil }
            return .url(url)
        case .absoluteURL:
            guard let url = HTTPURL(string: text) else { return nil }
            return .url(url)
        case .text:
            return .text(text)
        }
    }

    private static func list(_ words: [String]) -> String {
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
