import Synchronization
import MetronomeSupport
import MetronomeTiming

/// The audio thread's side of an Ableton Link session: where the session's
/// beats fall in each period, and the keys' changes made the session's.
///
/// `observe` takes each frame heard with its status stamp, carried to Link's
/// clock (`LinkTime`) and fitted by `HostTimeFilter`; `clicks` captures the
/// session each period and a `LinkBeatFollower` places its beats, each on the
/// first frame heard at or after its Link time. The quantum is the beats per
/// bar, so beat 0 of each bar is the session's downbeat.
///
/// Practice commands are committed from the audio thread
/// (`Link::commitAudioSessionState`). With start and stop shared, pause and
/// resume stop and start the session, a start asking for beat 0 at the next
/// downbeat (Link's quantized launch); without, they pause only this
/// metronome. Nothing here allocates or takes a lock of ours; Link's
/// audio-thread calls are realtime-safe.
package final class LinkConductor: @unchecked Sendable {
    package let session: LinkSession
    /// Whether start and stop are shared with the peers that share them.
    package let startStopSync: Bool
    /// Extra time from a frame leaving the device's delay to the ear, in nanoseconds.
    package let latencyNanoseconds: Int64

    private let clock: any Timekeeper
    private var filter: HostTimeFilter
    private var follower: LinkBeatFollower
    private let beatsPerBar = Atomic<Int>(4)
    private var locallyPaused = false
    /// The line the last period's clicks followed (see `smoothed`).
    private var steady: FrameTimeMapping?
    /// The frame heard at the last report; none yet, or none since a restart.
    private var lastHeard = Int64.max
    /// The session's tempo at the last period, in millibeats a minute, for the UI.
    private let tempoMilli = Atomic<Int64>(0)
    /// Whether the session's transport played at the last period, for the UI.
    private let transportPlaying = Atomic<Bool>(false)
    /// Whether the next click, alone in the session, starts a bar (the first, and after a resume).
    private var startsBar = true
    /// Whether a click was to be heard yet: the first bar alone is bar 1, a resume's the next.
    private var begun = false
    /// Whether the last period's beats were to be heard: the line fitted, not paused, the session playing.
    package private(set) var sounding = false

    package init(session: LinkSession, rate: SampleRate, periodFrames: Int, beatsPerBar: Int, startStopSync: Bool,
                latencyNanoseconds: Int64 = 0, fit: HostTimeFilter.Offset = .mean, clock: any Timekeeper = MonotonicClock()) {
        precondition(beatsPerBar > 0, "a bar needs a beat")
        self.session = session
        self.startStopSync = startStopSync
        self.latencyNanoseconds = latencyNanoseconds
        self.clock = clock
        filter = HostTimeFilter(rate: rate, offset: fit)
        // A beat refitted to just before the period still plays, at its first frame.
        follower = LinkBeatFollower(lateFrames: Int64(periodFrames))
        self.beatsPerBar.store(beatsPerBar, ordering: .relaxed)
    }

    /// A shared start plays from the first downbeat at or after its time, as Link apps do.
    static func firstDownbeat(of state: LinkSessionState, quantum: Int) -> Int64 {
        let bars = state.beat(at: state.timeForIsPlaying, quantum: Double(quantum)) / Double(quantum)
        guard bars.isFinite, abs(bars) < 0x1p50 else { return .min }
        return Int64((bars - 1e-9).rounded(.up)) * Int64(quantum)
    }

    /// The line the clicks follow: the fitted one, refitted every period,
    /// moves by a few microseconds each time as reports come and go; this one
    /// goes a sixteenth of the way to it each period (a third of a second at
    /// JACK's 1024 frames), so beats stay as steady as the clock, and takes
    /// it at once when it jumped (a restart, a far point) by more than a millisecond.
    private func smoothed(_ fitted: FrameTimeMapping, at frame: Int64) -> FrameTimeMapping {
        let target = fitted.nanos(ofFrame: frame)
        guard let last = steady, abs(target - last.nanos(ofFrame: frame)) <= 1_000_000 else {
            steady = fitted
            return fitted
        }
        let was = last.nanos(ofFrame: frame)
        let next = FrameTimeMapping(frame: frame, nanos: was + (target - was) / Self.smoothing,
                                    nanoframesPerSecond: last.nanoframesPerSecond
                                        + (fitted.nanoframesPerSecond - last.nanoframesPerSecond) / Self.smoothing)
        steady = next
        return next
    }

    static let smoothing: Int64 = 16

    /// The quantum: beats a bar, the bell's cycle.
    package var quantum: Int { beatsPerBar.load(ordering: .relaxed) }

    /// The session's tempo as the audio thread last saw it, in bpm; 0 before the first period.
    package var tempo: Double { Double(tempoMilli.load(ordering: .relaxed)) / 1_000 }

    /// Whether the session's transport played as the audio thread last saw it.
    package var isPlaying: Bool { transportPlaying.load(ordering: .relaxed) }

    /// Records that track frame `heard` was at the ear at the status stamp `instant`. Audio thread.
    /// Only while the device plays: a frame heard that has not moved since the
    /// last report (the buffer filling before the device starts) says nothing of when.
    package func observe(heard: Int64, at instant: MonotonicInstant) {
        defer { lastHeard = heard }
        guard heard > lastHeard else { return }
        let linkNow = session.now()
        let monotonicNow = clock.now()
        filter.add(frame: heard, heardAt: LinkTime(instant, monotonicNow: monotonicNow, linkNow: linkNow))
    }

    /// Forgets the line, as after an underrun: the next points make a new one.
    package func restart() {
        filter.reset()
        follower.reset()
        lastHeard = .max
        steady = nil
    }

    /// Applies a practice command to the session, and says whether it is
    /// done with it; the track applies those it leaves (mute, gain). Audio thread.
    package func apply(_ command: PracticeCommand) -> Bool {
        switch command {
        case .tempo(let tempo, _), .tap(let tempo, _, _):
            var state = session.captureAudioState()
            state.setTempo(Double(tempo.millibeatsPerMinute) / 1_000, at: session.now())
            session.commitAudioState(state)
            return false  // the track takes the gain
        case .beatsPerBar(let beats):
            if beats > 0 { beatsPerBar.store(beats, ordering: .relaxed) }
            return true
        case .pause where startStopSync, .resume where startStopSync:
            // Space turns the session's transport over, whatever this metronome last asked:
            // a peer may have started or stopped it since.
            var state = session.captureAudioState()
            if state.isPlaying {
                state.setIsPlaying(false, at: session.now())
            } else {
                state.setIsPlaying(true, at: session.now(), requestingBeat: 0, quantum: Double(quantum))
            }
            session.commitAudioState(state)
            return true
        case .pause:
            // Not shared: this metronome alone pauses, and its track too, so the picture stops with the clicks.
            locallyPaused = true
            return false
        case .resume:
            locallyPaused = false
            follower.reset()
            startsBar = true
            return false
        case .mute, .gain:
            return false
        case .song, .tempoFromNextBar:
            return true  // no setlist and no adaptive trainer with Link (the command refuses them): the session's beats lead
        }
    }

    /// The session's beats that start in the period of `count` frames from
    /// `start`, to `body` in order, with the session's tempo. Audio thread.
    package func clicks(inPeriodFrom start: Int64, frames count: Int64, _ body: (LinkClick, Double) -> Void) {
        var state = session.captureAudioState()
        let tempo = state.tempo
        tempoMilli.store(Int64((tempo * 1_000).rounded()), ordering: .relaxed)
        transportPlaying.store(state.isPlaying, ordering: .relaxed)
        sounding = false
        // A line of a few points is as rough as the device's reports: clicks wait for a second of them.
        guard !locallyPaused, filter.spanFrames >= filter.rate.framesPerSecond, let fitted = filter.mapping() else { return }
        let mapping = smoothed(fitted, at: start).delayed(byNanoseconds: latencyNanoseconds)
        let playing = !startStopSync || state.isPlaying
        sounding = playing
        let bar = quantum
        if startsBar, !startStopSync {
            startsBar = false
            // Alone, the first click heard is a bar's first, where this period starts, as Link's
            // apps start (a shared start already waits for the session's downbeat); with peers, their beats lead.
            if session.peers == 0 {
                let time = mapping.time(ofFrame: start)
                let beats = Double(bar), now = state.beat(at: time, quantum: beats)
                let downbeat = begun && now.isFinite ? (now / beats).rounded(.up) * beats : 0
                state.requestBeat(downbeat, at: time, quantum: beats)
                session.commitAudioState(state)
                follower.reset()
            }
        }
        begun = true
        let firstBeat = startStopSync && playing ? Self.firstDownbeat(of: state, quantum: bar) : .min
        follower.clicks(inPeriodFrom: start, frames: count, mapping: mapping, timeline: state, quantum: bar) { click in
            guard playing, click.beat >= firstBeat else { return }
            body(click, tempo)
        }
    }
}
