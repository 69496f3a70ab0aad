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
/// intervals (and at least 100 ms) counts as stopped too, until it comes again.
/// The audio thread's: fixed buffers, nothing allocated.
package struct MIDIClockFollower {
    package let rate: SampleRate
    /// The run's meter: the beat's note value and the bar's beats.
    package let meter: Meter
    /// Playing: after Start or Continue, until Stop or the clock vanishes.
    package private(set) var running = false
    /// The song position of the next clock, in clocks from the song's start.
    package private(set) var position: Int64 = 0
    /// The last clocks' frames (a ring of 25, for 24 intervals) and how many are kept.
    private var frames: [Int64]
    private var kept = 0
    private var newest = 0

    package init(rate: SampleRate, meter: Meter) {
        self.rate = rate
        self.meter = meter
        frames = Array(repeating: 0, count: Self.intervalsKept + 1)
    }

    static let intervalsKept = 24

    package var clocksPerBeat: Int64 { 96 / Int64(meter.noteValue) }

    /// Takes one message that came in at track frame `frame`; a clock on a beat
    /// while running is a click, written into `clicks` at `offset` frames into
    /// the cycle (if there is room); returns whether it was.
    package mutating func receive(_ status: UInt8, _ data1: UInt8, _ data2: UInt8, frame: Int64, offset: Int,
                                  into clicks: UnsafeMutableBufferPointer<FollowedClick>, count: inout Int) {
        switch status {
        case 0xFA:
            running = true
            position = 0
        case 0xFB:
            running = true
        case 0xFC:
            running = false
        case 0xF2:
            position = (Int64(data2 & 0x7F) << 7 | Int64(data1 & 0x7F)) * 6
        case 0xF8:
            keep(frame)
            guard running else { return }
            if position % clocksPerBeat == 0, count < clicks.count {
                let beat = position / clocksPerBeat
                let beats = Int64(meter.beatsPerBar)
                clicks[count] = FollowedClick(offset: offset, bar: beat / beats + 1, beatInBar: Int(beat % beats))
                count += 1
            }
            position += 1
        default:
            break
        }
    }

    /// Whether the clock, running, has not come for longer than 4 of its
    /// intervals and 100 ms by track frame `frame`: it counts as stopped.
    package mutating func vanished(by frame: Int64) -> Bool {
        guard running, kept > 0 else { return false }
        let interval = meanInterval ?? 0
        let limit = max(4 * interval, rate.framesPerSecond / 10)
        guard frame - frames[newest] > limit else { return false }
        running = false
        return true
    }

    /// The mean of the last intervals in frames, with up to 24 kept; nil before two clocks.
    private var meanInterval: Int64? {
        guard kept >= 2 else { return nil }
        let oldest = (newest - (kept - 1) + frames.count) % frames.count
        return (frames[newest] - frames[oldest]) / Int64(kept - 1)
    }

    /// The tempo of the beat the clock says: `60 R (96/d) / (4 · 24 · interval)`,
    /// from the mean interval, to a thousandth of a bpm; nil before two clocks.
    package var tempo: Tempo? {
        guard kept >= 2 else { return nil }
        let oldest = (newest - (kept - 1) + frames.count) % frames.count
        let span = frames[newest] - frames[oldest]
        guard span > 0 else { return nil }
        // bpm of quarters = 60 R (kept - 1) / (24 span); of beats, times d / 4.
        let millibeats = (60_000 * rate.framesPerSecond * Int64(kept - 1) * Int64(meter.noteValue) * 2 + 96 * span) / (2 * 96 * span)
        return Tempo(clamping: millibeats)
    }

    private mutating func keep(_ frame: Int64) {
        // A clock far from the last (the source stopped and came back) starts the tempo anew.
        if kept > 0, let interval = meanInterval, frame - frames[newest] > 4 * interval { kept = 0 }
        newest = (newest + 1) % frames.count
        frames[newest] = frame
        kept = min(kept + 1, frames.count)
    }
}
