/// Places a replay's events in lanes so that a key, once placed, stays in its lane for the rest of
/// the replay: what `run-runtime --jobs N` needs, where each lane is a runtime process with a
/// table of its own, so a user's events must all reach the process that holds the user's usage.
///
/// ``ReplayLanes/lanes(for:count:)`` may move a user to another lane at the next chunk, which is
/// right when every lane shares one table (`replay`), and wrong across processes. Here, events of
/// a chunk that share a key are joined as there, and a group goes to the lane any of its keys
/// already lives in; a group of new keys goes to the lane with the fewest events in the chunk.
/// An event that ties keys living in two lanes (an `Idempotency-Key` of one user's, sent later by
/// another user placed elsewhere) cannot run as a sequential replay would run it: it is the
/// ``Placement/conflict``, and neither it nor any later event is placed.
struct StickyLanes {
    /// One chunk's placement.
    struct Placement: Equatable {
        /// The positions of the chunk's events in each lane, in input order.
        var lanes: [[Int]]
        /// The first event that ties keys of two lanes, if one does.
        var conflict: LaneConflict?
    }

    /// How many lanes there are.
    let count: Int
    /// The lane of every key placed so far.
    private var homes: [String: Int] = [:]

    /// Lanes for a replay, none placed yet.
    init(count: Int) {
        self.count = max(count, 1)
    }

    /// The lane `key` lives in, once an event with it has been placed.
    func lane(of key: String) -> Int? { homes[key] }

    /// Places one chunk's events, and remembers the lane of every key they bring.
    /// - Parameter keys: each event's keys, in input order.
    mutating func place(_ keys: [[String]]) -> Placement {
        // Union-find over the chunk's keys, each group knowing the lane it already lives in.
        var sets = DisjointSets()
        var home: [Int?] = []
        var groupOfKey: [String: Int] = [:]
        var groupOfEvent: [Int?] = []
        groupOfEvent.reserveCapacity(keys.count)
        var conflict: LaneConflict?
        for (index, eventKeys) in keys.enumerated() {
            var roots: [Int] = []
            for key in eventKeys {
                if let group = groupOfKey[key] {
                    let top = sets.root(group)
                    if !roots.contains(top) { roots.append(top) }
                } else {
                    let group = sets.add()
                    groupOfKey[key] = group
                    roots.append(group)
                    home.append(homes[key])
                }
            }
            let lanes = Set(roots.compactMap { home[$0] })
            if lanes.count > 1 {
                conflict = LaneConflict(position: index, lanes: lanes.sorted())
                break
            }
            if let first = roots.first {
                for other in roots.dropFirst() { sets.join(other, into: first) }
                home[first] = lanes.first
            }
            groupOfEvent.append(roots.first)
        }

        // Each group whole to one lane: its home, else the lane with the fewest events so far.
        var members: [Int: [Int]] = [:]
        var order: [Int] = []
        var loners: [Int] = []
        for (index, group) in groupOfEvent.enumerated() {
            guard let group else {
                loners.append(index)
                continue
            }
            let top = sets.root(group)
            if members[top] == nil { order.append(top) }
            members[top, default: []].append(index)
        }
        var lanes = [[Int]](repeating: [], count: count)
        var laneOfGroup: [Int: Int] = [:]
        for top in order {
            if let lane = home[top] {
                lanes[lane] += members[top] ?? []
                laneOfGroup[top] = lane
            }
        }
        let newGroups = order.filter { home[$0] == nil }.map { (top: $0, events: members[$0] ?? []) }
        for group in newGroups.sorted(by: { $0.events.count > $1.events.count }) {
            let lightest = lanes.indices.min { lanes[$0].count < lanes[$1].count } ?? 0
            lanes[lightest] += group.events
            laneOfGroup[group.top] = lightest
        }
        for index in loners {
            let lightest = lanes.indices.min { lanes[$0].count < lanes[$1].count } ?? 0
            lanes[lightest].append(index)
        }
        for (key, group) in groupOfKey where homes[key] == nil {
            if let lane = laneOfGroup[sets.root(group)] { homes[key] = lane }
        }
        return Placement(lanes: lanes.map { $0.sorted() }, conflict: conflict)
    }
}

/// An event that ties keys two lanes hold state for (see ``StickyLanes``): a replay over runtime
/// processes with tables of their own stops before it.
package struct LaneConflict: Sendable, Hashable {
    /// The event's position in its chunk (``StickyLanes``), or its name once reported.
    package var position: Int
    /// The event, as named in output.
    package var event = ""
    /// The lanes whose keys it ties, counted from 0.
    package var lanes: [Int]
}
