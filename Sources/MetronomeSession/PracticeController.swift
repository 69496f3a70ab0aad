import MetronomeTiming
import MetronomeAudio
import MetronomeTerminal

/// The practice keys as a pure function: the player's settings now, a key
/// pressed when a given frame was heard, and the commands for the audio
/// thread that follow. Knows no clock, no device and no terminal.
package struct PracticeController: Sendable {
    package private(set) var tempo: Tempo
    /// Volume in hundredths, 0 to 100.
    package private(set) var volumePercent: Int
    package private(set) var muted = false
    package private(set) var paused = false
    /// The frames of the taps of the current series, oldest first (at most 5).
    package private(set) var taps: [Int64] = []
    package let rate: SampleRate
    private let headroom: Headroom

    /// Taps further apart than this start a new series.
    package static let tapSeriesGapSeconds: Int64 = 2
    package static let tapsKept = 5

    package init(tempo: Tempo, volume: Float, rate: SampleRate, headroom: Headroom) {
        self.tempo = tempo
        volumePercent = Int((volume * 100).rounded())
        self.rate = rate
        self.headroom = headroom
    }

    /// What a key does; `heardFrame` is the frame being heard when it was pressed.
    package enum Outcome: Equatable, Sendable {
        case command(PracticeCommand)
        case quit
        case toggleHelp
        case nothing
    }

    package mutating func press(_ key: Key, heardFrame: Int64) -> Outcome {
        switch key {
        case .up: return changeTempo(to: tempo.millibeatsPerMinute + 1_000)
        case .down: return changeTempo(to: tempo.millibeatsPerMinute - 1_000)
        case .right: return changeTempo(to: tempo.millibeatsPerMinute + 5_000)
        case .left: return changeTempo(to: tempo.millibeatsPerMinute - 5_000)
        case .pageUp: return changeTempo(to: tempo.millibeatsPerMinute * 2)
        case .pageDown: return changeTempo(to: tempo.millibeatsPerMinute / 2)
        case .escape: return .quit
        case .character(let byte):
            switch byte {
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): return .quit
            case UInt8(ascii: "?"), UInt8(ascii: "h"): return .toggleHelp
            case UInt8(ascii: " "):
                paused.toggle()
                return .command(paused ? .pause : .resume)
            case UInt8(ascii: "t"), UInt8(ascii: "T"): return tap(at: heardFrame)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return .command(.beatsPerBar(Int(byte - UInt8(ascii: "0"))))
            case UInt8(ascii: "m"), UInt8(ascii: "M"):
                muted.toggle()
                return .command(.mute(muted))
            case UInt8(ascii: "+"), UInt8(ascii: "="): return changeVolume(by: 10)
            case UInt8(ascii: "-"), UInt8(ascii: "_"): return changeVolume(by: -10)
            default: return .nothing
            }
        }
    }

    /// A tempo asked for outright (a MIDI controller over a range of tempos).
    package mutating func set(_ tempo: Tempo) -> Outcome { changeTempo(to: tempo.millibeatsPerMinute) }

    /// A volume asked for outright (`/klick/config/set_volume`), 0 to 100.
    package mutating func set(volumePercent: Int) -> Outcome { changeVolume(by: volumePercent - self.volumePercent) }

    /// Playing or stopped as asked (a sequencer's Start and Stop): nothing if it already is.
    package mutating func play(_ playing: Bool) -> Outcome {
        guard paused == playing else { return .nothing }
        paused = !playing
        return .command(paused ? .pause : .resume)
    }

    /// The tempi the keys asked for that no passage has played yet, oldest first (16 at most).
    /// Until the last has, a passage's tempo is the audio thread catching up with keys pressed
    /// since, not a plan moving the tempo: followed, it threw away the presses in between (20 Up
    /// presses in two bursts, the passages of the first half coming between, stopped at 115).
    private var awaited: [Tempo] = []
    /// Whether the keys' tempi come back as passages of exactly that tempo; not in a Link session,
    /// whose tempo a peer may move at the same time (there `LiveView` waits a second after a key).
    package var awaitsEchoes = true

    /// A passage at `tempo` started playing, moving the tempo if `moves` (a plan, a tempo map,
    /// the speed trainer or a Link peer): the keys step from it, unless keys asked for tempi
    /// since that have not all played yet (`awaiting`: a key was pressed lately; an echo that
    /// never comes, as where a clock or a transport leads, is not waited for longer): then it is
    /// one of theirs (taken off, with those before it) or older than them.
    package mutating func follow(_ tempo: Tempo, moves: Bool = true, awaiting: Bool = false) {
        if awaiting, !awaited.isEmpty {
            if let echoed = awaited.firstIndex(of: tempo) { awaited.removeFirst(echoed + 1) }
            return
        }
        awaited.removeAll()
        if moves { self.tempo = tempo }
    }

    /// A tempo sent to the audio thread, to be awaited as it comes back.
    private mutating func expectEcho(of tempo: Tempo) {
        guard awaitsEchoes else { return }
        if awaited.count == 16 { awaited.removeFirst() }
        awaited.append(tempo)
    }

    /// The gain for the volume at a tempo: the volume, lowered if clicks that close would clip.
    package func gain(for tempo: Tempo) -> Float {
        headroom.gain(for: ClickSchedule(tempo: tempo, rate: rate), volume: Float(volumePercent) / 100)
    }

    private mutating func changeTempo(to millibeats: Int64) -> Outcome {
        let new = Tempo(clamping: millibeats)
        guard new != tempo else { return .nothing }
        tempo = new
        expectEcho(of: new)
        return .command(.tempo(new, gain: gain(for: new)))
    }

    private mutating func changeVolume(by percent: Int) -> Outcome {
        let new = min(max(volumePercent + percent, 0), 100)
        guard new != volumePercent else { return .nothing }
        volumePercent = new
        return .command(.gain(gain(for: tempo)))
    }

    /// Tap tempo: the mean interval of the series' taps, rounded to 0.1 bpm;
    /// the next beat follows this tap by one new interval.
    private mutating func tap(at frame: Int64) -> Outcome {
        if let last = taps.last, frame - last > Self.tapSeriesGapSeconds * rate.framesPerSecond || frame <= last {
            taps.removeAll()
        }
        taps.append(frame)
        if taps.count > Self.tapsKept { taps.removeFirst(taps.count - Self.tapsKept) }
        guard taps.count >= 2, let first = taps.first else { return .nothing }
        // bpm = 60 R (n-1) / span; in tenths, rounded half up: floor((1200 R (n-1) + span) / (2 span)).
        let span = frame - first
        let tenths = (1_200 * rate.framesPerSecond * Int64(taps.count - 1) + span) / (2 * span)
        tempo = Tempo(clamping: tenths * 100)
        expectEcho(of: tempo)
        return .command(.tap(tempo, tapFrame: frame, gain: gain(for: tempo)))
    }
}
