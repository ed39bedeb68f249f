import Testing

@testable import LocalUserPool

/// Cognito's password-policy messages (InvalidPasswordException, "Password did not conform with
/// policy: …") for template.yaml's policy: 12 characters, lower case, upper case and numbers.
@Suite("The password policy of template.yaml")
struct PasswordPolicyTests {
    @Test(
        "each rule has Cognito's message",
        arguments: [
            ("Ab1", "Password not long enough"),
            ("ABCDEFGHIJK1", "Password must have lowercase characters"),
            ("abcdefghijk1", "Password must have uppercase characters"),
            ("Abcdefghijkl", "Password must have numeric characters"),
            (" Abcdefghijk1", "Password must satisfy regular expression pattern: ^\\S.*\\S$"),
        ])
    func rules(password: String, reason: String) {
        #expect(PasswordPolicy().violation(of: password) == "Password did not conform with policy: " + reason)
    }

    @Test("a conforming password passes; symbols are not required")
    func conforming() {
        #expect(PasswordPolicy().violation(of: "Abcdefghijk1") == nil)
        #expect(PasswordPolicy().violation(of: "Correct-Horse-9battery") == nil)
    }
}
