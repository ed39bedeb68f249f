import ArgumentParser

/// The spellings of `replay` before its jobs became subcommands (0.1), still read until 0.3.0:
/// each is rewritten to its subcommand, with a notice on standard error.
struct LegacySpelling {
    /// The version that reads the old spellings no more.
    static let removal = "0.3.0"

    /// The arguments, old spellings rewritten.
    let arguments: [String]

    /// What to print on standard error when an old spelling was rewritten.
    let notice: String?

    /// Rewrites `replay … --report --cost` to `replay bill …`, `replay … --report` to
    /// `replay report …` and `replay … --endpoint URL` to `replay endpoint URL …`; anything
    /// else, and anything after `--`, is left as it is.
    /// - Parameter arguments: the command line, without the program's name.
    init(_ arguments: [String]) {
        guard arguments.first == "replay", arguments.count > 1,
            !ReplayCommand.configuration.subcommands.contains(where: { $0._commandName == arguments[1] })
        else {
            (self.arguments, notice) = (arguments, nil)
            return
        }
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        var options = Array(arguments[1..<end])
        let rest = arguments[end...]
        let (old, new, job): (String, String, [String])
        if let url = Self.take("--endpoint", from: &options) {
            (old, new, job) = ("replay --endpoint URL", "replay endpoint URL", ["endpoint", url])
        } else if options.contains("--report") && options.contains("--cost") {
            options.removeAll { $0 == "--report" || $0 == "--cost" }
            (old, new, job) = ("replay --report --cost", "replay bill", ["bill"])
        } else if options.contains("--report") {
            options.removeAll { $0 == "--report" }
            (old, new, job) = ("replay --report", "replay report", ["report"])
        } else {
            (self.arguments, notice) = (arguments, nil)
            return
        }
        self.arguments = ["replay"] + job + options + rest
        notice = "notice: `\(old)` is now `inkra-emulator \(new)`; the old spelling goes in \(Self.removal)"
    }

    /// Removes `flag VALUE` or `flag=VALUE` from `options` and returns the value, if given.
    private static func take(_ flag: String, from options: inout [String]) -> String? {
        if let index = options.firstIndex(of: flag), index + 1 < options.count {
            let value = options[index + 1]
            options.removeSubrange(index...(index + 1))
            return value
        }
        if let index = options.firstIndex(where: { $0.hasPrefix(flag + "=") }) {
            return String(options.remove(at: index).dropFirst(flag.count + 1))
        }
        return nil
    }
}
