import MetronomeTiming

/// A click track that cannot be rendered to its file: asked for wrongly, its
/// file not creatable, or the writing failed midway. One line naming the file.
package typealias RenderError = LayerError<RenderFailure>

package enum RenderFailure: Sendable, Equatable {
    /// What was asked cannot be rendered (a format the name does not give, no length).
    case badRequest
    /// The file cannot be made (no directory, read-only, no room).
    case cannotCreate
    /// Writing failed after it began (a full disk, an I/O error).
    case writeFailed
}

extension LayerError where Kind == RenderFailure {
    package static func badRequest(_ message: String) -> RenderError { RenderError(.badRequest, message) }
}
