import EmulatorKit
import Foundation
import InkraTime
import Logging
import Synchronization
import Testing

@Suite("An invocation's log handler")
struct InvocationLogTests {
    /// What a handler behind the invocation log was given.
    final class Received: Sendable {
        let lines = Mutex<[(message: String, metadata: Logger.Metadata)]>([])
        let metadataSets = Mutex(0)
    }

    /// An upstream handler that keeps what it is given and counts the times its metadata is set.
    struct Recording: LogHandler {
        let received: Received
        var logLevel: Logger.Level = .warning
        var metadata: Logger.Metadata = [:] {
            didSet { received.metadataSets.withLock { $0 += 1 } }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            received.lines.withLock { $0.append(("\(event.message)", merged)) }
        }
    }

    static let when = Timestamp(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    func logger(_ received: Received) -> Logger {
        Logger(label: "test") { _ in
            InvocationLogHandler(upstream: Recording(received: received), now: { Self.when })
        }
    }

    @Test("metadata set on the logger reaches the upstream handler with each line, without being set on it")
    func metadataTravelsWithLines() {
        let received = Received()
        var logger = logger(received)
        for id in 1...3 { logger[metadataKey: "request"] = "\(id)" }
        #expect(logger[metadataKey: "request"] == "3")
        logger.warning("slow", metadata: ["table": "inkra-usage", "request": "override"])
        logger.error("failed")
        let lines = received.lines.withLock { $0 }
        #expect(lines.map(\.message) == ["slow", "failed"])
        #expect(lines.first?.metadata == ["request": "override", "table": "inkra-usage"])
        #expect(lines.last?.metadata == ["request": "3"])
        #expect(received.metadataSets.withLock { $0 } == 0)
    }

    @Test("an invocation keeps lines at info and above with the logger's metadata; upstream gets only its level")
    func capturedLines() throws {
        let received = Received()
        var logger = logger(received)
        logger.logLevel = .warning
        logger[metadataKey: "request"] = "7"
        let log = InvocationLog(requestID: "req-1")
        InvocationLog.$current.withValue(log) {
            logger.info("admitted", metadata: ["user": "u1"])
            logger.debug("not kept")
            logger.warning("late")
        }
        logger.warning("outside")
        #expect(
            log.contents
                == "2027-01-15T08:00:00Z\treq-1\tINFO\tadmitted request=7 user=u1\n"
                + "2027-01-15T08:00:00Z\treq-1\tWARNING\tlate request=7\n")
        #expect(received.lines.withLock { $0.map(\.message) } == ["late", "outside"])
    }
}
