/// A value the timing core cannot take: an option's text (`--bpm abc`) or a
/// tempo map's (`song.txt:3:5: …`). One line that quotes what was written and
/// says what would be right; the command gives it its exit status.
public struct TimingError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A value given on the command line.
        case badValue
        /// A file's text: a tempo map that is not one.
        case malformed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    public static func badValue(_ message: String) -> TimingError { TimingError(.badValue, message) }
}
