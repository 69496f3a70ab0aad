/// An error as each layer throws it: what kind of failure, and one line that
/// names what failed and says what would be right. Each layer has its own
/// kinds, which say what happened (`TimingError`, `SoundError`, `RenderError`,
/// `SessionError`); the command gives each kind its exit status in one place
/// (`CommandFailure`).
public struct LayerError<Kind: Sendable & Equatable>: Error, Equatable, Sendable, CustomStringConvertible {
    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
