import NIOCore
import NIOHTTP1
import Testing

@testable import InkraTestSupport

@Suite("RequestCollector: one HTTP/1.1 request from its parts")
struct RequestCollectorTests {
    static func head(_ uri: String) -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: .http1_1, method: .POST, uri: uri))
    }

    @Test("The body's pieces are joined; the request comes whole at its end, and the next starts afresh")
    func keepAlive() {
        var collector = RequestCollector()
        #expect(collector.collect(Self.head("/first")) == nil)
        #expect(collector.collect(.body(ByteBuffer(string: "hel"))) == nil)
        #expect(collector.collect(.body(ByteBuffer(string: "lo"))) == nil)
        let first = collector.collect(.end(nil))
        #expect(first?.head.uri == "/first")
        #expect(first?.body == Array("hello".utf8))
        #expect(collector.collect(Self.head("/second")) == nil)
        let second = collector.collect(.end(nil))
        #expect(second?.head.uri == "/second")
        #expect(second?.body == [])
    }

    @Test("An end with no head before it is no request")
    func endWithoutHead() {
        var collector = RequestCollector()
        #expect(collector.collect(.end(nil)) == nil)
        _ = collector.collect(Self.head("/once"))
        #expect(collector.collect(.end(nil)) != nil)
        #expect(collector.collect(.end(nil)) == nil)
    }
}
