import Testing

@testable import InkraUsage

@Suite("The server secret's pseudonyms")
struct ServerSecretTests {
    @Test("A user's pseudonym is theirs however users are asked for: in turn, again, and from many tasks")
    func userKeysStayApart() async {
        let secret = ServerSecret.development
        // The same secret's pseudonyms computed afresh (no earlier answer kept).
        let expected = Dictionary(uniqueKeysWithValues: ["ada", "bob", "cy"].map { ($0, fresh($0)) })
        #expect(Set(expected.values).count == 3)
        for user in ["ada", "ada", "bob", "ada", "cy", "cy", "bob"] {
            #expect(secret.userKey(user) == expected[user])
        }
        let answers = await withTaskGroup(of: (String, String).self) { group in
            for index in 0..<300 {
                let user = ["ada", "bob", "cy"][index % 3]
                group.addTask { (user, secret.userKey(user)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 300)
        for (user, key) in answers { #expect(key == expected[user], "\(user)") }
    }

    /// The pseudonym from a secret that has answered nothing yet.
    private func fresh(_ user: String) -> String {
        ServerSecret(ServerSecret.developmentText)!.userKey(user)
    }
}
