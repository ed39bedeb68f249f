/// A setting that is missing or malformed, with a stable code; stops start-up with a message naming
/// the setting.
struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable reason code.
    enum Code: String, Sendable, CustomStringConvertible {
        var description: String { rawValue }

        /// An `INKRA_*` variable this runtime does not know (a misspelling fails closed).
        case unknownSetting
        /// A setting the configuration needs is not set.
        case missing
        /// A setting's value is not one the runtime accepts.
        case invalid
        /// What a setting names (an SSM parameter, a secret, the pool's JWKS) could not be read.
        case unreadable
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
