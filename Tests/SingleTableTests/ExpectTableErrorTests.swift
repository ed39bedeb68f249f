import SingleTable
import Synchronization
import Testing

/// `expectTableError` says what was thrown when it is not what a test expected, so a failing
/// contract test reads as the table's answer rather than as a bare `nil`.
@Suite("expectTableError reports what was thrown")
struct ExpectTableErrorTests {
    struct Unrelated: Error, CustomStringConvertible {
        var description: String { "the socket closed" }
    }

    /// The text of the issues `body` records, each known so this test does not fail for them.
    static func recorded(_ body: () async -> TableError?) async -> (TableError?, [String]) {
        var returned: TableError?
        let issues = Mutex<[String]>([])
        await withKnownIssue {
            returned = await body()
        } matching: { issue in
            issues.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: " ")) }
            return true
        }
        return (returned, issues.withLock { $0 })
    }

    @Test("Another code: the issue names the code and message thrown")
    func anotherCode() async {
        let (returned, issues) = await Self.recorded {
            await expectTableError(.validation) {
                throw TableError(.conditionalCheckFailed, "The conditional request failed")
            }
        }
        #expect(returned == nil)
        #expect(issues.count == 1)
        #expect(issues.first?.contains("expected TableError ValidationException") == true, "\(issues)")
        #expect(
            issues.first?.contains("ConditionalCheckFailedException \"The conditional request failed\"") == true,
            "\(issues)")
    }

    @Test("Another message: the issue quotes the message thrown and the part expected")
    func anotherMessage() async {
        let (_, issues) = await Self.recorded {
            await expectTableError(.validation, "item too large") { throw TableError(.validation, "bad expression") }
        }
        #expect(issues.count == 1)
        #expect(issues.first?.contains("containing \"item too large\"") == true, "\(issues)")
        #expect(issues.first?.contains("\"bad expression\"") == true, "\(issues)")
    }

    @Test("Another error type, or nothing thrown: the issue says so")
    func notATableError() async {
        let (_, other) = await Self.recorded { await expectTableError(.validation) { throw Unrelated() } }
        #expect(other.first?.contains("Unrelated was thrown: the socket closed") == true, "\(other)")
        let (_, nothing) = await Self.recorded { await expectTableError(.validation) {} }
        #expect(nothing.first?.contains("nothing was thrown") == true, "\(nothing)")
    }

    @Test("The expected error is returned, with no issue")
    func match() async throws {
        let error = await expectTableError(.validation, "too large") { throw TableError(.validation, "item too large") }
        #expect(try #require(error).message == "item too large")
    }
}
