import InkraHandlers
import InkraLLM
import InkraTime

/// The model endpoint as the functions' `QuestionGenerator`. The adapter lives here, where the
/// functions are put together, so `InkraLLM` needs nothing of `InkraHandlers`.
struct ModelQuestionGenerator: QuestionGenerator, RequestBound {
    /// The chat-completions client.
    let model: ChatCompletionsGenerator

    func bound(to scope: RequestScope) -> ModelQuestionGenerator {
        ModelQuestionGenerator(model: model.bound(to: scope))
    }

    func questions(for request: QuestionRequest) async throws -> [String] {
        try await model.questions(
            about: request.topic, count: request.count, length: request.length.rawValue, language: request.language)
    }
}
