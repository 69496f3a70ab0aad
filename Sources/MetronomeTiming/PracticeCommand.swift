/// What the player asks of the running track, handed to the audio thread,
/// which applies it at the first frame it has not yet rendered.
package enum PracticeCommand: Sendable, Equatable, BitwiseCopyable {
    /// A new tempo from the next beat on, and the gain that keeps it from clipping.
    case tempo(Tempo, gain: Float)
    /// A new tempo from the next bar line on (the adaptive trainer's step), and its gain, which changes with it.
    case tempoFromNextBar(Tempo, gain: Float)
    /// A tapped tempo: the next beat falls one new interval after the tap heard at `tapFrame`.
    case tap(Tempo, tapFrame: Int64, gain: Float)
    /// Beats per bar from the next bar on; 0 keeps the bars and silences the bell.
    case beatsPerBar(Int)
    case pause
    case resume
    case mute(Bool)
    case gain(Float)
    /// A setlist's next song, whose passages come through plan queue `slot` (0 or 1): from the next bar line on.
    case song(slot: Int)
}
