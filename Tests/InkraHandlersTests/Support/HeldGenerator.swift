import InkraHandlers
import Synchronization

/// A generator whose answers wait until the test releases them: a request stays in generation for
/// as long as the test needs, however busy the machine is, with no delay to outlast.
final class HeldGenerator: QuestionGenerator {
    private struct State {
        var released = false
        var held: [CheckedContinuation<Void, Never>] = []
        var entered = 0
        var watching: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Returns once a request has come to generation (its unit and its in-progress mark written).
    func entered() async {
        await withCheckedContinuation { continuation in
            let already = state.withLock { state in
                if state.entered == 0 { state.watching.append(continuation) }
                return state.entered > 0
            }
            if already { continuation.resume() }
        }
    }

    /// Lets every held request and every later one answer.
    func release() {
        let held = state.withLock { state in
            state.released = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    func questions(for request: QuestionRequest) async throws -> [String] {
        let watching = state.withLock { state in
            state.entered += 1
            defer { state.watching = [] }
            return state.watching
        }
        for continuation in watching { continuation.resume() }
        await withCheckedContinuation { continuation in
            let released = state.withLock { state in
                if !state.released { state.held.append(continuation) }
                return state.released
            }
            if released { continuation.resume() }
        }
        return TemplateQuestionGenerator().questions(request)
    }
}
