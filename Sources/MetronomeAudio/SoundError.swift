import MetronomeTiming

/// A sound that cannot be had: a file that is missing or not audio, a sound
/// that cannot be written, a conversion that failed. One line naming the file.
package typealias SoundError = LayerError<SoundFailure>

package enum SoundFailure: Sendable, Equatable {
    /// A sound file (given or built in) cannot be read as a sound.
    case unreadable
    /// A sound cannot be written where asked.
    case unwritable
    /// A library failed where it should not: a bug, ours or its.
    case failed
}
