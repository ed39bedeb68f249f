import Synchronization

/// Runs a replay's events on several workers with the result of a sequential replay.
///
/// Events are taken a chunk at a time. Within a chunk, events that share a key (a user, an
/// idempotency key: ``LoadedEvent/keys``) are joined into groups — union-find, so two users tied
/// by one idempotency key are one group — and each group goes whole to one lane, which runs its
/// events in input order. A chunk has several lanes a worker, of about as many events each, and
/// each worker takes the next lane no other has taken, so no core waits on the slowest lane.
/// Results come back in input order, a chunk at a time, once the whole chunk has run, so no event
/// of a later chunk runs before an event of an earlier one. While a chunk runs, the next is read
/// and the one before is delivered.
///
/// Events of different groups touch different partitions of the table; the only item they share
/// is the refusal index's (GSI1) view, which no replayed function but `repairCharges` reads and
/// which the table keeps in key order, so the final state does not depend on how the workers
/// interleaved. A `repairCharges` event reads every user's unanswered calls, so it runs alone, in
/// a chunk of its own: after every event before it, before any after it.
///
/// With `sticky`, there is one lane a worker, a key keeps the lane it was first placed in for the
/// whole replay (``StickyLanes``), and each lane runs its events with ``Replayer/lane`` set to its
/// number, so `run-runtime` sends them to the runtime process of that lane.
struct ReplayLanes {
    /// How many workers run at once; 1 runs every event in turn, reading none ahead.
    var jobs: Int
    /// How many events are read, run and reported together when `jobs` > 1.
    var chunkSize = 256
    /// Whether a key stays in the lane it was first placed in across chunks.
    var sticky = false

    /// Runs every event of a source.
    /// - Parameters:
    ///   - source: the events.
    ///   - keep: whether an event is to run at all (`run-runtime` runs one function's).
    ///   - work: runs one event.
    ///   - deliver: takes the results in input order, with how many events the source holds when
    ///     known.
    /// - Returns: with `sticky`, the event that tied keys of two lanes, before which the replay
    ///   stopped (every event before it was run and delivered); otherwise `nil`.
    @discardableResult
    func run<Result: Sendable>(
        _ source: EventSource,
        keep: @escaping @Sendable (LoadedEvent) -> Bool = { _ in true },
        work: @escaping @Sendable (LoadedEvent) async -> Result,
        deliver: ([Result], _ knownTotal: Int?) -> Void
    ) async -> LaneConflict? {
        guard jobs > 1 else {
            var source = source
            while let event = source.next() {
                guard keep(event) else { continue }
                deliver([await work(event)], source.knownTotal)
            }
            return nil
        }
        let reader = EventReader(source, keep: keep)
        var placement = StickyLanes(count: jobs)
        var chunk = await reader.chunk(of: chunkSize)
        // A chunk's results are delivered while the next chunk runs: every event of a chunk has
        // run before any of the next starts, and delivery (printing) keeps no core waiting.
        var ran: (results: [Result], knownTotal: Int?)?
        while !chunk.events.isEmpty {
            async let following = reader.chunk(of: chunkSize)
            let keys = chunk.events.map(\.keys)
            let placed =
                sticky
                ? placement.place(keys)
                : StickyLanes.Placement(lanes: Self.lanes(for: keys, count: jobs * Self.lanesPerWorker))
            async let results = run(chunk.events, in: placed.lanes, fixed: sticky, work: work)
            if let ran { deliver(ran.results, ran.knownTotal) }
            ran = (await results, chunk.knownTotal)
            if var conflict = placed.conflict {
                deliver(ran?.results ?? [], chunk.knownTotal)
                conflict.event = chunk.events[conflict.position].display
                _ = await following
                return conflict
            }
            chunk = await following
        }
        if let ran { deliver(ran.results, ran.knownTotal) }
        return nil
    }

    /// How many lanes a chunk is split into per worker when lanes need not stay put: a worker
    /// whose lanes ran quickly takes more, so no core waits for the slowest lane of a chunk.
    static let lanesPerWorker = 8

    /// Runs one chunk's events placed in lanes on `jobs` workers; the results in input order.
    /// - Parameter fixed: lane `n` runs on worker `n` (there are `jobs` lanes), with
    ///   ``Replayer/lane`` `n`; otherwise each worker takes the next lane no worker has taken, and
    ///   ``Replayer/lane`` is the worker's number.
    private func run<Result: Sendable>(
        _ events: [LoadedEvent], in lanes: [[Int]], fixed: Bool,
        work: @escaping @Sendable (LoadedEvent) async -> Result
    ) async -> [Result] {
        let taken = LaneCounter()
        return await withTaskGroup(of: [(Int, Result)].self) { group in
            for worker in 0..<jobs {
                group.addTask {
                    await Replayer.$lane.withValue(worker) {
                        var results: [(Int, Result)] = []
                        var lane = fixed ? worker : taken.next()
                        while lane < lanes.count {
                            for index in lanes[lane] { results.append((index, await work(events[index]))) }
                            guard !fixed else { break }
                            lane = taken.next()
                        }
                        return results
                    }
                }
            }
            var results = [Result?](repeating: nil, count: events.count)
            for await part in group {
                for (index, result) in part { results[index] = result }
            }
            return results.compactMap { $0 }
        }
    }

    /// The events' positions, split into `count` lanes so that events sharing a key are in one
    /// lane, each lane in input order.
    /// - Parameter keys: each event's keys.
    static func lanes(for keys: [[String]], count: Int) -> [[Int]] {
        // A first placement: nothing is placed yet, so no event can tie two lanes.
        var placement = StickyLanes(count: count)
        return placement.place(keys).lanes
    }
}

/// Reads a source's events a chunk at a time, beside the workers.
private actor EventReader {
    private var source: EventSource
    private let keep: @Sendable (LoadedEvent) -> Bool
    /// The user key of each token seen lately.
    private var users: [String: String] = [:]
    /// A `repairCharges` event read while a chunk had events: the next chunk, alone.
    private var held: LoadedEvent?

    init(_ source: EventSource, keep: @escaping @Sendable (LoadedEvent) -> Bool) {
        self.source = source
        self.keep = keep
    }

    /// Up to `size` events (none at the end), with the source's total when known.
    func chunk(of size: Int) -> (events: [LoadedEvent], knownTotal: Int?) {
        if let event = held {
            held = nil
            return ([event], source.knownTotal)
        }
        var events: [LoadedEvent] = []
        events.reserveCapacity(size)
        while events.count < size, var event = source.next() {
            guard keep(event) else { continue }
            if event.function == .repairCharges {
                // It reads every partition: alone, after what came before it.
                if events.isEmpty { return ([event], source.knownTotal) }
                held = event
                break
            }
            if let function = event.function {
                event.keys = PartitionKeys.of(event.event, function: function, users: &users)
            }
            events.append(event)
        }
        return (events, source.knownTotal)
    }
}

/// Hands out lane numbers, each once, to the workers of a chunk.
private final class LaneCounter: Sendable {
    private let taken = Mutex(0)

    /// The next lane no worker has taken.
    func next() -> Int {
        taken.withLock { count in
            count += 1
            return count - 1
        }
    }
}
