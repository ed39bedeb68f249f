import InkraHandlers
import InkraLLM

/// The model endpoint as the functions' `QuestionGenerator`. The adapter lives here, where the
/// functions are put together, so `InkraLLM` needs nothing of `InkraHandlers`.
struct ModelQuestionGenerator: QuestionGenerator {
    /// The chat-completions client.
    let model: ChatCompletionsGenerator

    func questions(for request: QuestionRequest) async throws -> [String] {
        try await model.questions(
            about: request.topic, count: request.count, length: request.length.rawValue, language: request.language)
    }
}
