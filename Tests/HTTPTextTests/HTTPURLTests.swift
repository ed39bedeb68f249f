import Foundation
import HTTPText
import Testing

@Suite("HTTPURL: the URLs the shipped modules read, without Foundation")
struct HTTPURLTests {
    @Test(
        "Reads the parts Foundation's URL reads, for the endpoints, base URLs and issuers the package sees",
        arguments: [
            "https://dynamodb.eu-west-1.amazonaws.com",
            "https://dynamodb.eu-west-1.amazonaws.com/",
            "http://127.0.0.1:5055",
            "http://localhost:8000/v1",
            "https://api.openai.com/v1/",
            "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Pool/.well-known/jwks.json",
            "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08",
            "https://example.com/a%20b/c?x=1%202&y=#fragment",
            "HTTPS://Example.COM:8443/Path",
            "http://user:secret@host.example:81/p?q",
            "http://[::1]:9000/path",
            "http://[2001:db8::7]/",
            "https://host.example:/empty-port",
        ]
    )
    func agreesWithFoundation(text: String) throws {
        let ours = try #require(HTTPURL(string: text))
        let theirs = try #require(URL(string: text))
        #expect(ours.absoluteString == text)
        #expect(ours.scheme == theirs.scheme?.lowercased())
        let host = try #require(theirs.host(percentEncoded: false))
        #expect(ours.host == host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        #expect(ours.port == theirs.port)
        #expect(ours.path == theirs.path(percentEncoded: true))
        #expect(ours.query == theirs.query(percentEncoded: true))
    }

    @Test(
        "Refuses what is not an absolute URL with a host",
        arguments: [
            "", "dynamodb.eu-west-1.amazonaws.com", "/relative/path", "http:/one-slash", "http://", "http://:80/",
            "https://host name/", "https://host\n/", "1http://host/", "https://host:port/", "https://host:123456/",
            "http://[::1/", "http://[::1]x/",
        ]
    )
    func refuses(text: String) {
        #expect(HTTPURL(string: text) == nil, "\(text)")
    }

    @Test("Appends a path component with one slash; the Host field drops the scheme's own port")
    func appendingAndPorts() throws {
        let base = try #require(HTTPURL(string: "http://127.0.0.1:8080/v1"))
        #expect(
            base.appendingPathComponent("chat/completions").absoluteString
                == "http://127.0.0.1:8080/v1/chat/completions")
        let slash = try #require(HTTPURL(string: "https://api.example/v1/"))
        #expect(
            slash.appendingPathComponent("chat/completions").absoluteString == "https://api.example/v1/chat/completions"
        )
        #expect(slash.hostHeader == "api.example")
        #expect(base.hostHeader == "127.0.0.1:8080")
        #expect(try #require(HTTPURL(string: "HTTPS://Dynamo.Example:443/")).hostHeader == "dynamo.example")
        #expect(try #require(HTTPURL(string: "http://[::1]:80/")).hostHeader == "[::1]")
        #expect(try #require(HTTPURL(string: "http://[::1]:8000/")).hostHeader == "[::1]:8000")
        #expect("\(base)" == "http://127.0.0.1:8080/v1")
    }
}
