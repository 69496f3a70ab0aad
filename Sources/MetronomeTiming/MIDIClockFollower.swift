/// `--follow-midi-clock`: the clicks of an incoming MIDI clock, cycle by cycle.
///
/// A clock is 24 messages a quarter note; a beat of note value `d` is `96/d`
/// of them. Start plays from the song's beginning and Continue from the Song
/// Position Pointer last received (sixteenths, 6 clocks each); from either,
/// the first clock is the position and each clock that falls on a beat is a
/// click on that clock's very frame: the clicks are where the clock says,
/// never predicted. The tempo shown is the mean of the last 24 intervals
/// (a quarter note's: a hardware clock's jitter of a millisecond or two moves
/// it little). Stop stops; a clock that stops coming for longer than 4 of its
/// intervals (and at least 100 ms) holds the clicks until it comes again.
/// A clock lost on the way (jack_midi_clock leaves one out at a tempo change
/// on a cycle's first frame) is counted: an interval between 1.5 and 2.5
/// times the mean of a full quarter's is two, so the beats stay in phase
/// (a beat that fell on the lost clock clicks halfway between its
/// neighbours, or at the start of the cycle the next one came in); a
/// second such interval straight after is a clock that slowed down, and one
/// shorter than 3/4 of the mean a late clock's jitter: either way the clock
/// counted as lost is taken back.
/// The audio thread's: a fixed buffer, nothing allocated; its own thread only.
package final class MIDIClockFollower: @unchecked Sendable {
    package let rate: SampleRate
    /// The run's meter: the beat's note value and the bar's beats.
    package let meter: Meter
    /// Playing: after Start or Continue, until Stop.
    package private(set) var running = false
    /// The song position of the next clock, in clocks from the song's start.
    package private(set) var position: Int64 = 0
    /// The last clocks' frames (a ring of 25, for 24 intervals), how many are kept, and the newest's place.
    private let frames = UnsafeMutablePointer<Int64>.allocate(capacity: MIDIClockFollower.intervalsKept + 1)
    private var kept = 0
    private var newest = 0
    /// The frame of the last clock, Start or Continue: what a clock that vanished is measured from.
    private var lastSeen: Int64?
    /// Whether the last clock came after one counted as lost.
    private var afterLost = false
    /// Clocks counted as lost since Start (for the status and the tests).
    package private(set) var lostClocks = 0

    static let intervalsKept = 24

    package init(rate: SampleRate, meter: Meter) {
        self.rate = rate
        self.meter = meter
        frames.initialize(repeating: 0, count: Self.intervalsKept + 1)
    }

    deinit { frames.deallocate() }

    package var clocksPerBeat: Int64 { 96 / Int64(meter.noteValue) }

    /// Takes one message that came in at track frame `frame`; a clock on a beat
    /// while running is a click, written into `clicks` at `offset` frames into
    /// the cycle (if there is room).
    package func receive(_ status: UInt8, _ data1: UInt8, _ data2: UInt8, frame: Int64, offset: Int,
                         into clicks: UnsafeMutableBufferPointer<FollowedClick>, count: inout Int) {
        switch status {
        case 0xFA, 0xFB:
            running = true
            if status == 0xFA {
                position = 0
                lostClocks = 0
            }
            lastSeen = frame
            afterLost = false
        case 0xFC:
            running = false
        case 0xF2:
            position = (Int64(data2 & 0x7F) << 7 | Int64(data1 & 0x7F)) * 6
        case 0xF8:
            let previous = frames[newest]
            let lost = running ? lostBefore(frame) : 0
            keep(frame)
            guard running else { return }
            // This clock's position; a beat on it clicks here. A beat on the lost clock just before
            // it clicks where that clock would have been (halfway), or as early in this cycle as can be.
            let at = position + lost
            let onLost = lost == 1 && position % clocksPerBeat == 0
            // Taken back, this clock has the position the one before it had: its beat, if any, has clicked.
            if (at % clocksPerBeat == 0 && lost != -1) || onLost, count < clicks.count {
                let beat = (onLost ? position : at) / clocksPerBeat
                let beats = Int64(meter.beatsPerBar)
                // The lost clock's frame, halfway: this one's less half the interval, rounded up.
                let early = onLost ? Int((frame - previous + 1) / 2) : 0
                clicks[count] = FollowedClick(offset: max(0, offset - early), bar: beat / beats + 1, beatInBar: Int(beat % beats))
                count += 1
            }
            position = at + 1
        default:
            break
        }
    }

    /// How long without a clock counts as vanished: 4 of its intervals, and at least 100 ms.
    private var patience: Int64 { max(4 * (meanInterval ?? 0), rate.framesPerSecond / 10) }

    /// Whether the clock, running, has not come for longer than its patience by
    /// track frame `frame`: the clicks wait for it (it plays on from where it
    /// was when it comes again).
    package func isHeld(at frame: Int64) -> Bool {
        guard running, let lastSeen else { return false }
        return frame - lastSeen > patience
    }

    /// Whether the clicks play at track frame `frame`: running, and not held.
    package func plays(at frame: Int64) -> Bool { running && !isHeld(at: frame) }

    /// The mean of the last intervals in frames, with up to 24 kept; nil before two clocks.
    private var meanInterval: Int64? {
        guard kept >= 2 else { return nil }
        return span / Int64(kept - 1)
    }

    /// Frames from the oldest clock kept to the newest.
    private var span: Int64 {
        let count = Self.intervalsKept + 1
        return frames[newest] - frames[(newest - (kept - 1) + count) % count]
    }

    /// The tempo of the beat the clock says: `60 R (96/d) / (4 · 24 · interval)`,
    /// from the mean interval, to a thousandth of a bpm; nil before two clocks.
    package var tempo: Tempo? {
        guard kept >= 2, span > 0 else { return nil }
        // bpm of quarters = 60 R (kept - 1) / (24 span); of beats, times d / 4.
        let millibeats = (60_000 * rate.framesPerSecond * Int64(kept - 1) * Int64(meter.noteValue) * 2 + 96 * span) / (2 * 96 * span)
        return Tempo(clamping: millibeats)
    }

    /// Clocks lost before a clock at `frame` (0 or 1); one that came right
    /// after a lost one, as late again or early (jitter), takes it back (-1).
    /// Keeps a lost clock's frame (halfway) among the intervals.
    private func lostBefore(_ frame: Int64) -> Int64 {
        let wasAfterLost = afterLost
        afterLost = false
        guard kept == Self.intervalsKept + 1, let mean = meanInterval, mean > 0 else { return 0 }
        let interval = frame - frames[newest]
        // A late clock and then an early one (jitter): no clock was lost after all.
        if wasAfterLost, 4 * interval < 3 * mean {
            lostClocks -= 1
            return -1
        }
        guard 2 * interval > 3 * mean && 2 * interval < 5 * mean else { return 0 }
        if wasAfterLost {
            lostClocks -= 1
            kept = 1
            return -1
        }
        afterLost = true
        lostClocks += 1
        keep(frames[newest] + interval / 2)
        return 1
    }

    private func keep(_ frame: Int64) {
        // A clock after a gap (the source stopped and came back) starts the tempo anew.
        if let lastSeen, frame - lastSeen > patience { kept = 0 }
        lastSeen = frame
        newest = (newest + 1) % (Self.intervalsKept + 1)
        frames[newest] = frame
        kept = min(kept + 1, Self.intervalsKept + 1)
    }
}
