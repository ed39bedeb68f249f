import Foundation
import HTTPText
import InkraJSON
import InkraLLM
import InkraTestSupport
import Testing

@Suite("The chat-completions question generator, against a local server")
struct ChatCompletionsGeneratorTests {
    static func reply(_ content: String) -> String {
        JSONValue.object(["choices": [["message": ["role": "assistant", "content": .string(content)]]]]).jsonString
    }

    func generator(_ server: StubHTTPServer, timeout: TimeInterval = Patience.seconds) -> ChatCompletionsGenerator {
        ChatCompletionsGenerator(
            settings: .init(
                baseURL: HTTPURL(string: "http://127.0.0.1:\(server.port)/v1")!, apiKey: "sk-test", model: "test-model",
                timeout: timeout)
        )
    }

    @Test("Questions are cleaned, de-duplicated and trimmed to the count; the request names model and topic")
    func happyPath() async throws {
        let content =
            "1. When did sailing first call to you?\n2) What did your first boat look like?\n- What did your first boat look like?\n"
            + "* Who taught you to read the wind?\nHere are some questions:\n4. What would you tell a new sailor?\n5. Extra one?"
        let server = try await StubHTTPServer { _ in .json(200, Self.reply(content)) }
        defer { server.shutdown() }
        let questions = try await generator(server).questions(
            about: "learning to sail", count: 4, length: "short", language: "en"
        )
        #expect(
            questions == [
                "When did sailing first call to you?", "What did your first boat look like?",
                "Who taught you to read the wind?",
                "What would you tell a new sailor?",
            ])
        let sent = try #require(server.requests.first)
        #expect(sent.method == "POST")
        #expect(sent.uri == "/v1/chat/completions")
        #expect(sent.headers.contains { $0.0.lowercased() == "authorization" && $0.1 == "Bearer sk-test" })
        let body = try JSONParser.parse(sent.body)
        #expect(body["model"] == "test-model")
        #expect(body["messages"]?.array?.last?["content"]?.string?.contains("learning to sail") == true)
    }

    @Test("Too few questions, an error status, a malformed answer or a timeout are failures", .timeLimit(.minutes(10)))
    func failures() async throws {
        let cases: [(Int, String, GenerationFailure.Code)] = [
            (200, Self.reply("Only one question?"), .tooFew), (500, "{}", .status),
            (200, #"{"choices":[]}"#, .malformed), (429, "{}", .status),
        ]
        for (status, body, code) in cases {
            let server = try await StubHTTPServer { _ in .json(status, body) }
            let failure = await #expect(throws: GenerationFailure.self) {
                try await generator(server).questions(about: "x", count: 3, length: "medium")
            }
            #expect(failure?.code == code, "HTTP \(status) \(body)")
            server.shutdown()
        }
        // A model that answers only after the call has ended: the failure can only be the timeout's,
        // however busy the machine is (no timer to race).
        let held = Gate()
        let slow = try await StubHTTPServer { _ in
            await held.wait()
            return .json(200, Self.reply("A?"))
        }
        defer { slow.shutdown() }
        defer { held.open() }
        let late = await #expect(throws: GenerationFailure.self) {
            try await generator(slow, timeout: 0.3).questions(about: "x", count: 1, length: "medium")
        }
        #expect(late?.code == .unanswered)
    }

    @Test(
        "A key is sent over plain http only to this machine",
        arguments: [
            ("https://api.example/v1", "sk", false), ("http://api.example/v1", "sk", true),
            ("http://127.0.0.1:9/v1", "sk", false), ("http://localhost/v1", "sk", false),
            ("http://[::1]:8080/v1", "sk", false), ("http://127.0.0.1.example/v1", "sk", true),
            ("http://api.example/v1", nil, false),
        ] as [(String, String?, Bool)])
    func keyInTheClear(base: String, key: String?, inTheClear: Bool) throws {
        let settings = ChatCompletionsGenerator.Settings(
            baseURL: try #require(HTTPURL(string: base)), apiKey: key, model: "m")
        #expect(settings.sendsKeyInTheClear == inTheClear)
    }
}
