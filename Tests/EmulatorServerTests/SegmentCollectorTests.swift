import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The emulator's X-Ray daemon: datagrams read as the daemon reads them ("Sending segment
/// documents to the X-Ray daemon",
/// https://docs.aws.amazon.com/xray/latest/devguide/xray-api-sendingdata.html#xray-api-daemon: the
/// header `{"format": "json", "version": 1}`, a newline, one document).
@Suite("SegmentCollector: segment documents by trace id, anything else ignored")
struct SegmentCollectorTests {
    /// Sends `text` as one datagram to `address` (`127.0.0.1:port`).
    static func send(_ text: String, to address: String) throws {
        let port = try #require(UInt16(address.split(separator: ":").last ?? ""))
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_DGRAM, 0)
        #endif
        defer { close(descriptor) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = port.bigEndian
        target.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bytes = Array(text.utf8)
        let sent = withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(sent == bytes.count)
    }

    @Test("A well-formed datagram is kept by its trace; a wrong header, no header or no trace id is not")
    func datagrams() async throws {
        let collector = try await SegmentCollector()
        let header = #"{"format": "json", "version": 1}"#
        let document =
            ###"{"name":"## checkUsage","id":"53995c3f42cd8ad8","trace_id":"1-5759e988-bd862e3fe1be46a994272793"}"###
        try Self.send(
            #"{"format": "xml", "version": 1}"# + "\n" + document.replacing("a994272793", with: "a994272790"),
            to: collector.address)
        try Self.send(document.replacing("a994272793", with: "a994272791"), to: collector.address)
        try Self.send(header + "\n" + #"{"name":"no trace"}"#, to: collector.address)
        try Self.send(header + "\nnot json", to: collector.address)
        try Self.send(header + "\n" + document, to: collector.address)
        let kept = await collector.document(forTrace: "1-5759e988-bd862e3fe1be46a994272793", within: Patience.hang)
        #expect(kept?["name"] == "## checkUsage")
        // Datagrams on loopback arrive in order: the ones before it were read, and dropped.
        for ignored in ["1-5759e988-bd862e3fe1be46a994272790", "1-5759e988-bd862e3fe1be46a994272791"] {
            #expect(await collector.document(forTrace: ignored, within: .zero) == nil)
        }
        await collector.shutdown()
    }

    @Test("A document of tens of kilobytes, as an invocation with many calls sends, is read whole")
    func largeDocument() async throws {
        let collector = try await SegmentCollector()
        let root = "1-5759e988-bd862e3fe1be46a994272793"
        // 300 subsegments of about 95 bytes each: some 28 kB, well past a small read buffer.
        let spans = (0..<300).map { index in
            ###"{"name":"DynamoDB","id":"\###(String(format: "%016x", index))","start_time":1.5,"end_time":2.5,"namespace":"aws"}"###
        }
        let document =
            ###"{"name":"## generateQuestions","id":"53995c3f42cd8ad8","trace_id":"\###(root)","subsegments":["###
            + spans.joined(separator: ",") + "]}"
        #expect(document.utf8.count > 25_000)
        let header = #"{"format": "json", "version": 1}"# + "\n"
        try Self.send(header + document, to: collector.address)
        // A small one after it: datagrams on loopback arrive in order, so once it has come, the
        // large one was read (and kept, or dropped if it was cut).
        let marker = "1-5759e988-bd862e3fe1be46a994272794"
        try Self.send(
            header + ###"{"name":"marker","id":"53995c3f42cd8ad9","trace_id":"\###(marker)"}"###, to: collector.address)
        #expect(await collector.document(forTrace: marker, waitingUpTo: Patience.hang) != nil)
        let kept = await collector.document(forTrace: root, waitingUpTo: .zero)
        #expect(kept?["subsegments"]?.array?.count == 300, "the document was not read whole")
        await collector.shutdown()
    }
}
