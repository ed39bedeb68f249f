/// An SSM parameter's name as SSM has it, and the one rule from that name to the IAM resource that
/// grants reading it (template.yaml's `LimitsParameterReadPolicy` follows the same rule).
///
/// SSM's naming rules (`PutParameter`, `Name`): letters, digits, `_`, `.`, `-` and `/`; a name in a
/// hierarchy includes its leading slash (`/inkra/limits`), a name outside one has no slash at all
/// (`inkra-limits`). The parameter's ARN is `arn:<partition>:ssm:<region>:<account>:parameter/`
/// followed by the name without its leading slash, for both forms.
package struct SSMParameterName: Sendable, Hashable, CustomStringConvertible {
    /// The name, exactly as `GetParameter` is sent it.
    package let name: String

    /// Checks a name's form.
    /// - Throws: ``AWSServiceError/invalidConfiguration`` saying what is wrong (a slash without the leading
    ///   one, an empty level, a character SSM does not allow).
    package init(_ name: String) throws(AWSServiceError) {
        guard !name.isEmpty, name.utf8.count <= 1011 else {
            throw .configuration(
                "an SSM parameter name has 1 to 1011 characters, got \(name.utf8.count)")
        }
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "_.-/".unicodeScalars.contains($0)
        }
        guard allowed else {
            throw .configuration(
                "an SSM parameter name holds only letters, digits, '_', '.', '-' and '/', got \"\(name)\"")
        }
        if name.contains("/") {
            guard name.hasPrefix("/") else {
                throw .configuration(
                    "an SSM parameter name in a hierarchy starts with '/' (\"/\(name)\"), got \"\(name)\"")
            }
            guard !name.dropFirst().split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty)
            else {
                throw .configuration("an SSM parameter name has no empty level, got \"\(name)\"")
            }
        }
        self.name = name
    }

    /// The ARN IAM grants `ssm:GetParameter` on.
    package func arn(partition: String = "aws", region: String, account: String) -> String {
        let path = name.hasPrefix("/") ? String(name.dropFirst()) : name
        return "arn:\(partition):ssm:\(region):\(account):parameter/\(path)"
    }

    package var description: String { name }
}
