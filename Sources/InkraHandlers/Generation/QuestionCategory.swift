/// The stages of an interview, in the order a good interviewer moves through them.
package enum QuestionCategory: String, Sendable, Hashable, CaseIterable {
    /// Setting the scene.
    case opening
    /// Where it came from, who was there.
    case background
    /// Moments that changed the course.
    case turningPoints
    /// What it felt like.
    case feelings
    /// What was learned.
    case lessons
    /// What comes next.
    case future
}
