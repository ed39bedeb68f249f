import InkraHandlers
import Synchronization

/// A question generator that follows a script: each call takes the script's next step (answer
/// these questions, answer as the template generator does, fail, or wait first), and once the
/// script is played out, every further call takes its last step.
///
/// ```swift
/// let generator = ScriptedGenerator([.questions(["Where did it start?"]), .failure, .delayed(.seconds(2), .template)])
/// let flaky = ScriptedGenerator(repeating: .failure)
/// ```
///
/// It remembers what it was asked (``requests``), so a test can check what reached the model and
/// what never did.
public final class ScriptedGenerator: QuestionGenerator {
    /// What one call does.
    public indirect enum Step: Sendable {
        /// Answers these questions, whatever was asked.
        case questions([String])
        /// Answers as `TemplateQuestionGenerator` (seed 0) does: as many distinct
        /// questions as were asked for, about the topic.
        case template
        /// Throws this error, as a failing model endpoint would.
        case fail(any Error)
        /// Waits (cancellably, as a network call does), then does the step.
        case delayed(Duration, Step)

        /// Throws a ``TestFailure``.
        public static var failure: Step { .fail(TestFailure("the scripted generator failed")) }
    }

    private struct State {
        var next = 0
        var requests: [QuestionRequest] = []
    }

    private let steps: [Step]
    private let state = Mutex(State())

    /// A generator that plays `script`, then repeats its last step; an empty script answers as
    /// the template generator does.
    public init(_ script: [Step]) {
        steps = script.isEmpty ? [.template] : script
    }

    /// A generator that does the same for every call.
    public convenience init(repeating step: Step) {
        self.init([step])
    }

    /// The requests it was given, in the order the calls began.
    public var requests: [QuestionRequest] { state.withLock { $0.requests } }

    public func questions(for request: QuestionRequest) async throws -> [String] {
        let step = state.withLock { state in
            state.requests.append(request)
            defer { state.next += 1 }
            return steps[min(state.next, steps.count - 1)]
        }
        return try await perform(step, request)
    }

    private func perform(_ step: Step, _ request: QuestionRequest) async throws -> [String] {
        switch step {
        case .questions(let questions):
            return questions
        case .template:
            return TemplateQuestionGenerator().questions(request)
        case .fail(let error):
            throw error
        case .delayed(let duration, let then):
            try await Task.sleep(for: duration)
            return try await perform(then, request)
        }
    }
}
