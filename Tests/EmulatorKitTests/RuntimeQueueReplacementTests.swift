import EmulatorKit
import Foundation
import InkraTestSupport
import InkraTime
import Testing

/// The queue's part in replacing a runtime (`serve --watch`): held invocations wait, and a
/// replacement waiting for the old runtime to finish is not left waiting when that runtime dies.
@Suite("RuntimeQueue: replacing the runtime")
struct RuntimeQueueReplacementTests {
    @Test(
        "A runtime that ends while a replacement waits for it to finish lets the replacement go on",
        .timeLimit(.minutes(10)))
    func endWhileWaitingForIdle() async throws {
        let queue = RuntimeQueue(now: { Timestamp(timeIntervalSince1970: 1_800_000_000) })
        let invocation = Task { await queue.invoke(Array("{}".utf8), timeout: Patience.seconds, functionARN: "arn") }
        let taken = await queue.next()
        #expect(taken != nil)
        await queue.hold()
        let replacement = Task { await queue.idle() }
        await queue.runtimeEnded("the runtime exited with status 137")
        await replacement.value
        #expect(await invocation.value == .runtimeExited("the runtime exited with status 137"))
        // The next runtime takes what comes after, once the replacement is done.
        await queue.finishReplacement()
        let next = Task { await queue.invoke(Array("{}".utf8), timeout: Patience.seconds, functionARN: "arn") }
        let handed = try #require(await queue.next())
        await queue.complete(handed.requestID, with: .response(Array("{}".utf8)))
        #expect(await next.value == .response(Array("{}".utf8)))
    }
}
