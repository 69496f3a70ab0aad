import CLink

/// A captured Link session state (`ableton::Link::SessionState`): the beat
/// timeline and the start/stop state as they were when captured, to read,
/// change and commit back.
///
/// A value held in place, so capturing one on the audio thread allocates
/// nothing. It is a snapshot: capture a fresh one for each period (audio
/// thread) or each action (any other thread) rather than keeping one.
package struct LinkSessionState: LinkTimeline, Sendable {
    var raw = mtl_link_session_state()

    init() {}

    /// The tempo in bpm (`SessionState::tempo`), steady enough to show.
    package var tempo: Double {
        withUnsafePointer(to: raw) { mtl_link_state_tempo($0) }
    }

    /// Changes the tempo from `time` on (`SessionState::setTempo`); the beat at `time` stays where it was.
    package mutating func setTempo(_ bpm: Double, at time: LinkTime) {
        mtl_link_state_set_tempo(&raw, bpm, time.micros)
    }

    package func beat(at time: LinkTime, quantum: Double) -> Double {
        withUnsafePointer(to: raw) { mtl_link_state_beat_at_time($0, time.micros, quantum) }
    }

    /// Where `time` falls in the bar of `quantum` beats (`SessionState::phaseAtTime`), in [0, quantum).
    package func phase(at time: LinkTime, quantum: Double) -> Double {
        withUnsafePointer(to: raw) { mtl_link_state_phase_at_time($0, time.micros, quantum) }
    }

    package func time(atBeat beat: Double, quantum: Double) -> LinkTime {
        LinkTime(micros: withUnsafePointer(to: raw) { mtl_link_state_time_at_beat($0, beat, quantum) })
    }

    /// Asks for `beat` at `time` (`SessionState::requestBeatAtTime`): alone in
    /// the session it is granted as asked; with peers, the beat falls at the
    /// next time after `time` with the same phase, so nobody else jumps.
    package mutating func requestBeat(_ beat: Double, at time: LinkTime, quantum: Double) {
        mtl_link_state_request_beat_at_time(&raw, beat, time.micros, quantum)
    }

    /// Whether transport plays (`SessionState::isPlaying`), shared with the peers that sync start and stop.
    package var isPlaying: Bool {
        withUnsafePointer(to: raw) { mtl_link_state_is_playing($0) }
    }

    /// When the last start or stop takes effect (`SessionState::timeForIsPlaying`).
    package var timeForIsPlaying: LinkTime {
        LinkTime(micros: withUnsafePointer(to: raw) { mtl_link_state_time_for_is_playing($0) })
    }

    /// Starts or stops transport at `time` (`SessionState::setIsPlaying`).
    package mutating func setIsPlaying(_ playing: Bool, at time: LinkTime) {
        mtl_link_state_set_is_playing(&raw, playing, time.micros)
    }

    /// Starts or stops at `time` and asks for `beat` there
    /// (`SessionState::setIsPlayingAndRequestBeatAtTime`): a start that waits for the session's bar.
    package mutating func setIsPlaying(_ playing: Bool, at time: LinkTime, requestingBeat beat: Double, quantum: Double) {
        mtl_link_state_set_is_playing_and_request_beat_at_time(&raw, playing, time.micros, beat, quantum)
    }
}
