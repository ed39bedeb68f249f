import EmulatorKit
import Foundation
import InkraJSON

#if canImport(Glibc)
    import Glibc
#endif

/// A progress line on standard error for long replays, never on standard output: redrawn in
/// place on a terminal at most every 100 ms, a line every 5 seconds otherwise, from the first
/// second on (nothing for a replay that ends within it).
final class Progress {
    private let terminal = isatty(STDERR_FILENO) == 1
    private let started = ContinuousClock.now
    private var last: ContinuousClock.Instant?
    private var drawn = false
    private var position = 0

    /// Prints an event's record on standard output, a line or a JSON object, above the progress
    /// line, and counts it done (of `total` when known).
    func print(_ record: ReplayRecord, json: Bool, total: Int?) {
        clear()
        Output.out(json ? ReplayReporter.json(for: record).jsonString : ReplayReporter.line(for: record))
        advance(total)
    }

    /// One more event done, of `total` when known.
    func advance(_ total: Int?) {
        position += 1
        show(position, total)
    }

    /// `position` events done, of `total` when known.
    func show(_ position: Int, _ total: Int?) {
        if let total, position >= total { return }
        let now = ContinuousClock.now
        guard now - started >= .seconds(1) else { return }
        if let last, now - last < (terminal ? .milliseconds(100) : .seconds(5)) { return }
        last = now
        let rate = Double(position) / max(Double((now - started).components.seconds), 1)
        var text = "\(position)"
        if let total { text += "/\(total)" }
        text += " events"
        if let total { text += " (\(position * 100 / total)%)" }
        text += String(format: ", %.0f a second", rate)
        if terminal {
            FileHandle.standardError.write(Data("\r  replaying \(text)".utf8))
            drawn = true
        } else {
            Output.err("  replayed \(text)")
        }
    }

    /// Takes the progress line off a terminal, before other output.
    func clear() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
