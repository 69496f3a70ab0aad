import MetronomeSupport
import MetronomeTiming
import MetronomeLink

/// What plays a click track live, whatever carries it to the ear: ALSA's
/// writer thread (`LivePlayback`) or a JACK client's process callback. The
/// session and its loop see only this; each is configured whole at its init.
package protocol ClickPlayer: AnyObject {
    /// The track it plays; its logs (clicks, passages, songs) are read by the UI loop.
    var track: ClickTrack { get }
    /// The frame heard now, published by the audio side.
    var position: AudiblePosition { get }
    /// The output's sample rate, in which the track counts frames.
    var rate: SampleRate { get }
    /// The Ableton Link session that places the beats, if the run joined one.
    var link: LinkConductor? { get }
    /// Where the clicks go, for messages (`default`, `hw:0`, `none`).
    var outputName: String { get }
    /// The output's latency in tenths of a millisecond for the status line; nil when nothing is heard.
    var latencyTenths: Int64? { get }
    /// What real-time priority the audio side was granted, once started; nil when not asked.
    var scheduling: RealTimeScheduling? { get }
    /// Whether playback has ended (track over, stopped, or failed).
    var isFinished: Bool { get }
    /// Underruns so far.
    var underruns: Int { get }
    /// The failure that ended playback, if one did.
    var failure: SinkError? { get }
    /// Whether another client's timebase places the beats (a JACK transport): the tempo may change at any time.
    var followsTransport: Bool { get }
    /// Whether each published heard frame is exact at its instant (JACK's cycle times and port latency)
    /// rather than a device status stale by up to a period: the picture's line then follows every sample.
    var publishesExactPositions: Bool { get }

    /// `--midi-in`: the MIDI messages that came in, for the UI loop; nil without a MIDI input.
    var receivedMIDI: LockFreeQueue<ReceivedMIDI>? { get }
    /// `--follow-midi-clock`: whether the clock plays (false: the clicks wait for it); nil when not following one.
    var midiClockPlays: Bool? { get }

    func start()
    /// Hands a practice command to the audio side; it takes effect at the first frame not yet rendered.
    func send(_ command: PracticeCommand)
    /// Asks the audio side to fade out and stop; returns at once.
    func stop()
    /// Waits for the audio side to end.
    func join()
}

package extension ClickPlayer {
    var followsTransport: Bool { false }
    var publishesExactPositions: Bool { false }
}

extension ClickPlayer {
    package var receivedMIDI: LockFreeQueue<ReceivedMIDI>? { nil }
    package var midiClockPlays: Bool? { nil }
}
