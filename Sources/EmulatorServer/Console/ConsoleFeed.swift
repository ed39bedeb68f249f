import EmulatorKit
import Foundation
import InkraJSON
import Synchronization

/// What the console keeps of the gateway's traffic: the latest exchanges, numbered, and every
/// open live list (server-sent events) to pass new ones on to. Memory only; nothing is written.
package final class ConsoleFeed: Sendable {
    /// One exchange as the console keeps it: numbered, its token already redacted.
    package struct Entry: Sendable {
        /// The exchange's number in this run, from 1.
        package var sequence: Int
        /// The exchange, without its token.
        package var exchange: GatewayExchange
    }

    /// One line of `serve --watch`'s rebuilds, as the console's feed shows it.
    package struct Rebuild: Sendable, Hashable {
        /// Where the rebuild is.
        package enum Stage: String, Sendable, Hashable {
            case started, succeeded, failed
        }
        /// Started, succeeded or failed.
        package var stage: Stage
        /// What the line says: the files that changed, the time taken, what was kept.
        package var message: String
        /// For a failed build, the compiler's first error lines.
        package var lines: [String] = []
    }

    /// What the live list passes on: a request answered, or a rebuild line.
    package enum Item: Sendable {
        case exchange(Entry)
        case rebuild(Rebuild)
    }

    /// What a caller told the authorizer it is, as the authorizer's context names it.
    package struct Caller: Sendable, Hashable {
        /// The tier (`free`, `premium`).
        package var tier: String?
        /// The monthly quota the token set, when it set one.
        package var quota: Int?
    }

    private struct State {
        var entries: [Entry] = []
        var next = 1
        var subscribers: [Int: AsyncStream<Item>.Continuation] = [:]
        var rebuilds: [Rebuild] = []
        var nextSubscriber = 0
        var callers: [String: Caller] = [:]
        var finished = false
    }

    /// How many exchanges are kept; older ones drop off the list.
    package let capacity: Int
    /// Names this run of `serve`, so that a page still open from an earlier run starts its list
    /// again rather than skip numbers it saw then.
    package let run = String(UUID().uuidString.prefix(8)).lowercased()
    private let state = Mutex(State())

    /// A feed keeping the latest `capacity` exchanges.
    package init(capacity: Int = 500) {
        self.capacity = max(1, capacity)
    }

    /// Takes one exchange from the gateway (an entry of `LocalAPIGateway.Configuration.observers`).
    package func observe(_ exchange: GatewayExchange) {
        var kept = exchange
        kept.event = kept.event.map(ConsoleRedaction.redacted)
        if var step = kept.authorizer {
            step.event = step.event.map(ConsoleRedaction.redacted)
            kept.authorizer = step
        }
        let caller = Self.caller(of: exchange)
        state.withLock { state in
            let entry = Entry(sequence: state.next, exchange: kept)
            state.next += 1
            state.entries.append(entry)
            if state.entries.count > capacity { state.entries.removeFirst(state.entries.count - capacity) }
            // Every caller is known by id (the table names users by pseudonyms only); its tier
            // when its token said one.
            if let user = exchange.userID, caller != nil || state.callers[user] == nil {
                state.callers[user] = caller ?? Caller()
            }
            for continuation in state.subscribers.values { continuation.yield(.exchange(entry)) }
        }
    }

    /// How many rebuild lines are kept.
    static let rebuildCapacity = 20

    /// Takes a line of the watch loop's rebuilds and passes it to every live list.
    package func note(_ rebuild: Rebuild) {
        state.withLock { state in
            state.rebuilds.append(rebuild)
            if state.rebuilds.count > Self.rebuildCapacity {
                state.rebuilds.removeFirst(state.rebuilds.count - Self.rebuildCapacity)
            }
            for continuation in state.subscribers.values { continuation.yield(.rebuild(rebuild)) }
        }
    }

    /// The kept rebuild lines, oldest first.
    package var rebuilds: [Rebuild] { state.withLock { $0.rebuilds } }

    /// The kept exchanges, oldest first.
    package var entries: [Entry] { state.withLock { $0.entries } }

    /// The kept exchange of a number, if it is still kept.
    package func entry(_ sequence: Int) -> Entry? {
        state.withLock { state in state.entries.first { $0.sequence == sequence } }
    }

    /// Each user seen in a request, with the tier and quota its latest authorized request carried
    /// (neither when its token said none).
    package var callers: [String: Caller] { state.withLock { $0.callers } }

    /// The kept exchanges after `sequence`, and every later one, and every later rebuild line, as
    /// they come, until ``finish()``.
    package func subscribe(after sequence: Int) -> AsyncStream<Item> {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingNewest(capacity))
        let id: Int? = state.withLock { state in
            for entry in state.entries where entry.sequence > sequence { continuation.yield(.exchange(entry)) }
            guard !state.finished else { return nil }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every live list, as the server shuts down (an open event stream would hold it up).
    package func finish() {
        let open = state.withLock { state in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in open { continuation.finish() }
    }

    private static func caller(of exchange: GatewayExchange) -> Caller? {
        guard case .success(let answer) = exchange.authorizer?.result else { return nil }
        let context = answer["context"] ?? answer
        let tier = context["tier"]?.scalarText
        let quota = context["quota"]?.scalarText.flatMap { Int($0) }
        guard tier != nil || quota != nil else { return nil }
        return Caller(tier: tier, quota: quota)
    }
}

/// Takes the token out of events before the console keeps them.
enum ConsoleRedaction {
    static let marker = "[redacted]"
    private static let secretKeys: Set<String> = ["authorization", "authorizationtoken", "identitysource", "cookie"]

    /// The value with every `Authorization` header, `authorizationToken`, `identitySource` and
    /// cookie replaced by a marker, wherever they are.
    static func redacted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(
                JSONObject(
                    object.pairs.map { key, member in
                        guard secretKeys.contains(key.lowercased()) else { return (key, redacted(member)) }
                        switch member {
                        case .null: return (key, .null)
                        case .array(let values): return (key, .array(values.map { _ in .string(marker) }))
                        default: return (key, .string(marker))
                        }
                    }))
        case .array(let values):
            return .array(values.map(redacted))
        default:
            return value
        }
    }
}
