/// A stretch of the click track at one tempo and one meter.
///
/// From `firstClick` on, click `k` sits on the exact grid of the passage's
/// tempo counted from its origin: `originFrame + floor(j * 60 * R / B + 1/2)`
/// with `j = k - originClick`. A tempo change starts a new passage whose
/// origin is a click of the old grid, so no click is doubled, skipped or
/// shifted; a tapped tempo starts one whose origin is the tap. Clicks are
/// counted across passages (every beat from 0), and so are bars.
package struct Passage: Sendable, Equatable, BitwiseCopyable {
    /// The first click this passage plays (or would play, while paused).
    package var firstClick: Int64
    package var originClick: Int64
    package var originFrame: Int64
    /// The tempo, the meter (for counting bars) and the rate.
    package var grid: ClickSchedule
    /// A click that starts a bar, and that bar's number from 0.
    package var barClick: Int64
    package var barNumber: Int64
    /// MIDI clocks (24 a quarter note) from the song's start to bar `barNumber`'s first beat:
    /// where a receiver of `--midi-clock` is in the song (negative in a count-in).
    package var barClock: Int64
    /// Whether the first beat of a bar rings the bell (`0` turns it off).
    package var bell: Bool
    /// Paused: no clicks from `pauseFrame` on.
    package var paused: Bool
    package var pauseFrame: Int64
    /// Accents, subdivisions, the second voice, the count-in and muted beats.
    package var rhythm: Rhythm
    /// Where the origin lies between `originFrame` and the next frame, as the
    /// grid's arithmetic needs it for beats, subdivisions and the second voice
    /// (0 unless a plan put the origin between frames; see `ClickSchedule`).
    package var phase = GridPhase.zero
    /// The level of this passage's clicks (a tempo-map entry's volume), 0 to 1.
    package var volume: Float = 1
    /// Whether a plan (a tempo map, the speed trainer) has passages to follow this one.
    package var plannedMore = false

    /// The passage a run starts with: click 0 at frame 0, the first bar of
    /// the count-in (bar -N) or bar 0.
    package init(schedule: ClickSchedule, rhythm: Rhythm = .plain) {
        firstClick = 0
        originClick = 0
        originFrame = 0
        grid = schedule
        barClick = 0
        barNumber = -rhythm.countInBars
        barClock = -rhythm.countInBars * Int64(schedule.meter.beatsPerBar) * (96 / Int64(schedule.meter.noteValue))
        bell = true
        paused = false
        pauseFrame = 0
        self.rhythm = rhythm
    }

    package var tempo: Tempo { grid.tempo }
    package var meter: Meter { grid.meter }

    /// The frame of click `k` on this passage's grid (k at or after its origin).
    @inline(__always)
    package func frame(ofClick click: Int64) -> Int64 {
        originFrame + grid.frame(ofClick: click - originClick, phase: phase.beat)
    }

    /// The first click of this passage whose frame is at or after `frame`.
    @inline(__always)
    package func firstClick(atOrAfter frame: Int64) -> Int64 {
        max(firstClick, originClick + grid.firstClick(atOrAfter: frame - originFrame, phase: phase.beat))
    }

    /// The bar of click `k` and its beat in that bar (from 0), counted from `barClick`.
    @inline(__always)
    package func bar(ofClick click: Int64) -> (bar: Int64, beat: Int64) {
        let beats = Int64(grid.meter.beatsPerBar)
        let offset = click - barClick
        let bars = offset >= 0 ? offset / beats : -((-offset + beats - 1) / beats)
        return (barNumber + bars, offset - bars * beats)
    }

    @inline(__always)
    package func startsBar(_ click: Int64) -> Bool { bar(ofClick: click).beat == 0 }

    @inline(__always)
    package func isBell(click: Int64) -> Bool { sound(ofClick: click) == .bell }

    /// What beat `click` plays: the pattern's choice, else the bell on the
    /// first beat and an accent where a later group starts; nil for a rest.
    @inline(__always)
    package func sound(ofClick click: Int64) -> ClickSound? {
        let beat = Int(bar(ofClick: click).beat)
        if let pattern = rhythm.pattern, pattern.beats == grid.meter.beatsPerBar {
            let bit: UInt32 = 1 << UInt32(beat)
            if pattern.rests & bit != 0 { return nil }
            return pattern.accents & bit != 0 && bell ? .bell : .beat
        }
        guard bell else { return .beat }
        if beat == 0 { return .bell }
        return grid.meter.startsGroup(beat: beat) ? .accent : .beat
    }

    /// Whether beat `click`, in bar `bar`, is muted by the gap trainer or at random (never in the count-in).
    @inline(__always)
    package func isMuted(click: Int64, bar: Int64) -> Bool {
        rhythm.muting.mutes(bar: bar) || (bar >= 0 && rhythm.muting.mutesAtRandom(click: click))
    }

    /// The frame of subdivision tick `tick` (counted from click 0 in ticks of `1 / rhythm.subdivision.ticksPerBeat` beat).
    @inline(__always)
    package func frame(ofSubdivisionTick tick: Int64) -> Int64 {
        let ticksPerBeat = rhythm.subdivision.ticksPerBeat
        return originFrame + grid.frame(ofTick: tick - originClick * ticksPerBeat, ticksPerBeat: ticksPerBeat,
                                        phase: phase.subdivision)
    }

    /// The frame of second-voice tick `tick` (counted from click 0 in ticks of `1 / A` beat).
    @inline(__always)
    package func frame(ofPolyrhythmTick tick: Int64) -> Int64 {
        let ticksPerBeat = Int64(rhythm.polyrhythm?.clicks ?? 1)
        return originFrame + grid.frame(ofTick: tick - originClick * ticksPerBeat, ticksPerBeat: ticksPerBeat,
                                        phase: phase.polyrhythm)
    }

    /// MIDI clocks a beat: 24 a quarter note, so `96 / d` for a beat of note value `d` (3 to 96).
    @inline(__always)
    package var clockTicksPerBeat: Int64 { 96 / Int64(grid.meter.noteValue) }

    /// The frame of MIDI clock tick `tick` (counted from click 0 in ticks of `1 / clockTicksPerBeat` beat).
    @inline(__always)
    package func frame(ofClockTick tick: Int64) -> Int64 {
        let ticksPerBeat = clockTicksPerBeat
        return originFrame + grid.frame(ofTick: tick - originClick * ticksPerBeat, ticksPerBeat: ticksPerBeat, phase: phase.clock)
    }

    /// Where in the song click `k` falls, in MIDI clocks from its start (see `barClock`).
    @inline(__always)
    package func songClock(ofClick click: Int64) -> Int64 {
        barClock + (click - barClick) * clockTicksPerBeat
    }

    /// The frame where this passage takes over from the one before.
    package var startFrame: Int64 { paused ? pauseFrame : frame(ofClick: firstClick) }

    // MARK: Changes. `next` is the first click not yet started, `position` the first frame not yet rendered.

    /// The new tempo from click `next` on, which keeps its frame on the old grid.
    package func changingTempo(to tempo: Tempo, next: Int64) -> Passage {
        var passage = self
        passage.grid = ClickSchedule(tempo: tempo, meter: grid.meter, rate: grid.rate)
        guard !paused else { return passage }
        passage.firstClick = next
        passage.originClick = next
        passage.originFrame = frame(ofClick: next)
        passage.phase = .zero
        return passage
    }

    /// A tapped tempo: click `next` falls one new interval after the tap at
    /// `tapFrame` (or whole intervals later, if that frame is already
    /// rendered), and the new grid counts from it, as after any tempo change.
    package func rephasing(to tempo: Tempo, tapFrame: Int64, next: Int64, position: Int64) -> Passage {
        var passage = changingTempo(to: tempo, next: next)
        guard !paused else { return passage }
        let intervals = max(1, passage.grid.firstClick(atOrAfter: position - tapFrame))
        passage.originClick = next
        passage.originFrame = tapFrame + passage.grid.frame(ofClick: intervals)
        passage.phase = .zero
        return passage
    }

    /// From click `next`, a bar start, bars of `beats` (0: the same bars
    /// without the bell). Additive groups, and a pattern of another length, are dropped.
    package func changingMeter(beats: Int, next: Int64) -> Passage {
        var passage = self
        let (bar, _) = self.bar(ofClick: next)
        if beats > 0, let meter = Meter(beatsPerBar: beats, noteValue: grid.meter.noteValue) {
            passage.grid = ClickSchedule(tempo: grid.tempo, meter: meter, rate: grid.rate)
            if let pattern = rhythm.pattern, pattern.beats != beats { passage.rhythm.pattern = nil }
        }
        passage.bell = beats > 0
        passage.firstClick = next
        passage.barClock = songClock(ofClick: next)
        passage.barClick = next
        passage.barNumber = bar
        return passage
    }

    /// Silence from frame `position`; click `next` waits for the resume.
    package func pausing(next: Int64, position: Int64) -> Passage {
        var passage = self
        passage.paused = true
        passage.pauseFrame = position
        passage.firstClick = next
        return passage
    }

    /// Playing again from frame `position`: a new bar at once, bell first.
    package func resuming(next: Int64, position: Int64) -> Passage {
        var passage = self
        passage.paused = false
        passage.firstClick = next
        passage.originClick = next
        passage.originFrame = position
        passage.phase = .zero
        passage.barNumber = bar(ofClick: next - 1).bar + 1
        passage.barClock = barClock + (passage.barNumber - barNumber) * Int64(grid.meter.beatsPerBar) * clockTicksPerBeat
        passage.barClick = next
        return passage
    }
}

/// A grid origin that falls between frames: the fraction `f` of a frame past
/// `originFrame`, held as `floor(f * 2Q)`, `floor(f * 2QT)` for the
/// subdivision ticks, for the second voice's and for MIDI clock's
/// (`floor(f * 2QT)` each with its own `T`), which is all the grid's
/// integer arithmetic needs to place every click as if the origin were exact.
package struct GridPhase: Sendable, Equatable, BitwiseCopyable {
    package var beat: UInt64
    package var subdivision: UInt64
    package var polyrhythm: UInt64
    package var clock: UInt64

    package static let zero = GridPhase(beat: 0, subdivision: 0, polyrhythm: 0, clock: 0)

    package init(beat: UInt64, subdivision: UInt64, polyrhythm: UInt64, clock: UInt64 = 0) {
        self.beat = beat
        self.subdivision = subdivision
        self.polyrhythm = polyrhythm
        self.clock = clock
    }
}
