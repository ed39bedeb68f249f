import InkraTime
import Synchronization
import Testing

@Suite("Backoff: capped exponential waits with an injected jitter")
struct BackoffTests {
    @Test("The ceiling starts at the base and doubles with each attempt up to the cap")
    func ceilings() {
        let backoff = Backoff(base: .milliseconds(25), cap: .seconds(1), jitter: Backoff.none)
        let ceilings = (1...9).map { backoff.ceiling(after: $0) / .milliseconds(1) }
        #expect(ceilings == [25, 50, 100, 200, 400, 800, 1000, 1000, 1000])
    }

    @Test("The wait is the jitter's fraction of the ceiling", arguments: [0.0, 0.25, 0.5, 1.0])
    func fraction(jitter: Double) {
        let backoff = Backoff(base: .milliseconds(20), cap: .milliseconds(500), jitter: { jitter })
        #expect(backoff.delay(after: 3) == .milliseconds(80) * jitter)
        #expect(backoff.delay(after: 7) == .milliseconds(500) * jitter)
    }

    @Test("Without jitter, the waits are the ceilings themselves")
    func withoutJitter() {
        let backoff = Backoff(base: .milliseconds(10), cap: .seconds(1), jitter: Backoff.none)
        #expect((1...8).map { backoff.delay(after: $0) / .milliseconds(1) } == [10, 20, 40, 80, 160, 320, 640, 1000])
    }

    @Test("The jitter is asked once per wait, and the default one stays under the ceiling")
    func jitterPerWait() {
        let fractions = Fractions([0.5, 0.25])
        let backoff = Backoff(base: .milliseconds(100), cap: .seconds(1), jitter: { fractions.next() })
        #expect(backoff.delay(after: 1) == .milliseconds(50))
        #expect(backoff.delay(after: 2) == .milliseconds(50))
        let random = Backoff(base: .milliseconds(100), cap: .seconds(1))
        for attempt in 1...20 {
            let wait = random.delay(after: attempt)
            #expect(wait >= .zero && wait < random.ceiling(after: attempt))
        }
    }

    @Test("A long run of attempts stays at the cap instead of overflowing")
    func manyAttempts() {
        let backoff = Backoff(base: .milliseconds(20), cap: .milliseconds(500), jitter: Backoff.none)
        #expect(backoff.ceiling(after: 64) == .milliseconds(500))
        #expect(backoff.ceiling(after: 10_000) == .milliseconds(500))
    }
}

/// Fractions handed out in order, one per call.
private final class Fractions: Sendable {
    private let remaining: Mutex<[Double]>

    init(_ values: [Double]) { remaining = Mutex(values) }

    func next() -> Double { remaining.withLock { $0.removeFirst() } }
}
