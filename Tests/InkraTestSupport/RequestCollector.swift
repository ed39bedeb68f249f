import NIOCore
import NIOHTTP1

/// Gathers one HTTP/1.1 request from its parts: the head, then the body's pieces, then the end.
struct RequestCollector {
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    /// Takes one part; at the request's end, the whole request.
    mutating func collect(_ part: HTTPServerRequestPart) -> (head: HTTPRequestHead, body: [UInt8])? {
        switch part {
        case .head(let head):
            self.head = head
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return nil }
            self.head = nil
            return (head, body)
        }
        return nil
    }
}
