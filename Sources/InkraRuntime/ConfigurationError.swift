/// A setting that is missing or malformed; stops start-up with a message naming it.
struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The environment variable or flag.
    var setting: String
    /// What is wrong with it.
    var reason: String

    /// Creates an error.
    init(_ setting: String, _ reason: String) {
        self.setting = setting
        self.reason = reason
    }

    /// "`<setting>` `<reason>`".
    var description: String { "\(setting) \(reason)" }
}
