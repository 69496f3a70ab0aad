/// An error as each layer throws it: what kind of failure, and one line that
/// names what failed and says what would be right. Each layer has its own
/// kinds, which say what happened (`TimingError`, `SoundError`, `RenderError`,
/// `SessionError`); the command gives each kind its exit status in one place
/// (`CommandFailure`).
package struct LayerError<Kind: Sendable & Equatable>: Error, Equatable, Sendable, CustomStringConvertible {
    package let kind: Kind
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }
}
