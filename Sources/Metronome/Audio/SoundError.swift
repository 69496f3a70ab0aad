/// A sound that cannot be had: a file that is missing or not audio, a sound
/// that cannot be written, a conversion that failed. One line naming the file.
public struct SoundError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A sound file (given or built in) cannot be read as a sound.
        case unreadable
        /// A sound cannot be written where asked.
        case unwritable
        /// A library failed where it should not: a bug, ours or its.
        case failed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
