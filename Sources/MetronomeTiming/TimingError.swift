/// A value the timing core cannot take: an option's text (`--bpm abc`) or a
/// tempo map's (`song.txt:3:5: …`). One line that quotes what was written and
/// says what would be right.
public typealias TimingError = LayerError<TimingFailure>

public enum TimingFailure: Sendable, Equatable {
    /// A value given on the command line.
    case badValue
    /// A file's text: a tempo map that is not one.
    case malformed
}

extension LayerError where Kind == TimingFailure {
    public static func badValue(_ message: String) -> TimingError { TimingError(.badValue, message) }
}
