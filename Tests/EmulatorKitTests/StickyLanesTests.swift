import Testing

@testable import EmulatorKit

/// The lanes of `run-runtime --jobs N`, where each lane is a runtime process with a table of its
/// own: a key stays where it was first placed, and an event tying two lanes is the conflict.
@Suite("Lanes that keep their keys (run-runtime --jobs)")
struct StickyLanesTests {
    @Test("A user keeps its lane in the next chunk, even when that lane is the busier one")
    func keepsLane() {
        var lanes = StickyLanes(count: 2)
        let first = lanes.place(Array(repeating: ["user a"], count: 5) + [["user b"]])
        #expect(first.lanes == [[0, 1, 2, 3, 4], [5]], "the larger group is placed first, on lane 0")
        // Balancing alone would now put b's five events on a lane of their own, and a beside c.
        let second = lanes.place(Array(repeating: ["user b"], count: 5) + [["user a"], ["user c"]])
        #expect(second.conflict == nil)
        #expect(second.lanes == [[5, 6], [0, 1, 2, 3, 4]])
        #expect(lanes.lane(of: "user c") == 0, "a new user goes to the lane with fewer events in the chunk")
    }

    @Test("Over many chunks of interleaved users, no user ever changes lane, and every event is placed in order")
    func neverMoves() {
        var lanes = StickyLanes(count: 3)
        var seen: [String: Int] = [:]
        var state: UInt64 = 25
        for chunk in 0..<40 {
            let keys: [[String]] = (0..<64).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let user = Int((state >> 33) % UInt64(10 + chunk * 3))
                // Retries of one user's own key tie nothing new.
                return user % 4 == 0 ? ["user \(user)", "idempotency \(user)-\(chunk)"] : ["user \(user)"]
            }
            let placement = lanes.place(keys)
            #expect(placement.conflict == nil)
            #expect(placement.lanes.flatMap { $0 }.sorted() == Array(keys.indices))
            for lane in placement.lanes { #expect(lane == lane.sorted()) }
            for (lane, events) in placement.lanes.enumerated() {
                for key in events.flatMap({ keys[$0] }) where key.hasPrefix("user ") {
                    #expect(seen[key, default: lane] == lane, "\(key) moved in chunk \(chunk)")
                    seen[key] = lane
                }
            }
        }
        #expect(Set(seen.values) == [0, 1, 2], "new users are spread over every lane")
    }

    @Test("A new key tied in the chunk to a placed user follows that user's lane")
    func newKeyFollows() {
        var lanes = StickyLanes(count: 2)
        _ = lanes.place([["user a"], ["user a"], ["user b"]])
        let placement = lanes.place([["user d", "idempotency j"], ["user c"], ["user b", "idempotency j"]])
        #expect(placement.conflict == nil)
        #expect(placement.lanes[1] == [0, 2], "d is tied to b by the key j")
        #expect(lanes.lane(of: "user d") == 1)
        #expect(lanes.lane(of: "idempotency j") == 1)
    }

    @Test("An event tying keys of two lanes is the conflict: the events before it are placed, it and later ones not")
    func conflict() {
        var lanes = StickyLanes(count: 2)
        let first = lanes.place([["user a", "idempotency k"], ["user a"], ["user b"]])
        #expect(first.conflict == nil)
        #expect(lanes.lane(of: "idempotency k") == 0)
        #expect(lanes.lane(of: "user b") == 1)
        let second = lanes.place([["user b"], ["user c"], ["user b", "idempotency k"], ["user a"], ["user e"]])
        #expect(second.conflict == LaneConflict(position: 2, lanes: [0, 1]))
        #expect(second.lanes.flatMap { $0 }.sorted() == [0, 1])
        #expect(lanes.lane(of: "user e") == nil, "nothing after the conflict is placed")
    }

    @Test("Two users first seen apart and tied in a later chunk are a conflict, even through a new user")
    func conflictThroughNewKey() {
        var lanes = StickyLanes(count: 2)
        _ = lanes.place([["user a"], ["user a"], ["user b"]])
        let placement = lanes.place([
            ["user a", "idempotency x"], ["user c", "idempotency x"], ["user c", "idempotency y"],
            ["user b", "idempotency y"],
        ])
        #expect(placement.conflict?.position == 3)
        #expect(placement.lanes[0] == [0, 1, 2])
    }

    @Test("With one lane nothing conflicts")
    func oneLane() {
        var lanes = StickyLanes(count: 1)
        _ = lanes.place([["user a", "idempotency k"], ["user b"]])
        let placement = lanes.place([["user b", "idempotency k"]])
        #expect(placement.conflict == nil)
        #expect(placement.lanes == [[0]])
    }
}
