/// A value the timing core cannot take: an option's text (`--bpm abc`) or a
/// tempo map's (`song.txt:3:5: …`). One line that quotes what was written and
/// says what would be right.
package typealias TimingError = LayerError<TimingFailure>

package enum TimingFailure: Sendable, Equatable {
    /// A value not of its form or out of its range (`--bpm 0`, `--meter 4/3`),
    /// wherever it was given.
    case invalid
    /// A file's text: a tempo map or a setlist that is not one.
    case malformed
}

extension LayerError where Kind == TimingFailure {
    package static func invalid(_ message: String) -> TimingError { TimingError(.invalid, message) }
}
