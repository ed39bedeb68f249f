/// A setting that is missing or malformed, with a stable code; stops start-up with a message naming
/// the setting.
struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable reason code.
    struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        var rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }
        var description: String { rawValue }

        /// An `INKRA_*` variable this runtime does not know (a misspelling fails closed).
        static let unknownSetting = Code(rawValue: "unknownSetting")
        /// A setting the configuration needs is not set.
        static let missing = Code(rawValue: "missing")
        /// A setting's value is not one the runtime accepts.
        static let invalid = Code(rawValue: "invalid")
        /// What a setting names (an SSM parameter, a secret, the pool's JWKS) could not be read.
        static let unreadable = Code(rawValue: "unreadable")
    }

    /// The reason.
    var code: Code
    /// The environment variable or flag.
    var setting: String
    /// What is wrong with it.
    var reason: String

    /// Creates an error.
    init(_ code: Code, _ setting: String, _ reason: String) {
        self.code = code
        self.setting = setting
        self.reason = reason
    }

    /// "`<setting>` `<reason>`".
    var description: String { "\(setting) \(reason)" }
}
