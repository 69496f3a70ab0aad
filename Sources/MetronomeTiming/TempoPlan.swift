import Glibc

/// A run whose tempo follows a plan: a tempo map, or the speed trainer.
///
/// Works out the click track's passages ahead of the audio thread: one a
/// constant-tempo stretch (an entry, a trainer step), one a beat of a
/// per-beat list or a ramp. Each passage's origin is the exact sum of the
/// stretches before it, so no rounding carries from one to the next.
/// Allocates: never on the audio thread.
package struct TempoPlan: Sendable {
    package enum Source: Sendable, Equatable {
        /// `--step S/M --until T`: from `start`, every `barsPerStep` bars
        /// the tempo moves `step` thousandths of a bpm, until it reaches `until`.
        case trainer(start: Tempo, step: Int64, barsPerStep: Int64, until: Tempo, meter: Meter)
        /// The entries of a map from `first` on; after the last, again from `first` if `loops`.
        case map(TempoMap, first: Int, loops: Bool)
    }

    package let source: Source
    package let rate: SampleRate
    /// The rhythm of every passage (a map entry's pattern replaces its pattern).
    package let rhythm: Rhythm

    /// Where the next passage starts, its first click and its bar.
    private(set) var position = ExactPosition.zero
    private var click: Int64 = 0
    private var bar: Int64 = 0
    /// Where the next passage starts in the song, in MIDI clocks (24 a quarter
    /// note) from the map's first entry, and where the plan's first bar is (a
    /// map's `--start-at` entry, to which a loop comes back).
    private var songClock: Int64 = 0
    private var firstClock: Int64 = 0
    /// The next stretch: a trainer step's tempo, or a map entry and a beat in it.
    private var trainerTempo: Tempo
    private var entry: Int
    private var beatInEntry: Int64 = 0
    /// A ramp's start, from which each of its beats is placed.
    private var rampStart = ExactPosition.zero
    private var finished = false
    /// Past a map's last entry, its bars going on in `meterAfterEnd`: one endless passage left.
    private var inTail = false
    /// No passage starts at or after this click: the end of the run's beats, after the count-in.
    private var clickLimit = Int64.max

    /// `beats`: the run stops after this many beats (after the count-in); nil: where the plan ends, or never.
    package init(_ source: Source, rate: SampleRate, rhythm: Rhythm, beats: Int64? = nil) {
        self.source = source
        self.rate = rate
        self.rhythm = rhythm
        loudest = Self.loudest(of: source)
        switch source {
        case .trainer(let start, _, _, _, _):
            trainerTempo = start
            entry = 0
        case .map(let map, let first, _):
            trainerTempo = Tempo(bpm: 120)!
            entry = first
            firstClock = map.entries[..<first].reduce(0) { $0 + $1.beats * Self.clockTicks(of: $1.meter) }
            songClock = firstClock
        }
        // The count-in plays before the plan, at its first tempo and meter.
        let first = firstSchedule
        click = rhythm.countInBars * Int64(first.meter.beatsPerBar)
        position.advance(by: click, of: first.framesPerClick)
        if let beats { clickLimit = click + beats }
    }

    /// The next passage, or nil after the last one; the last one before the run's end is marked so.
    package mutating func next() -> Passage? {
        guard !finished, click < clickLimit, var passage = nextStretch() else { return nil }
        if click >= clickLimit {
            passage.plannedMore = false
            finished = true
        }
        return passage
    }

    // MARK: What the track needs before it starts

    /// The tempo and meter of the first bar (and of the count-in).
    package var firstSchedule: ClickSchedule {
        switch source {
        case .trainer(let start, _, _, _, let meter):
            return ClickSchedule(tempo: start, meter: meter, rate: rate)
        case .map(let map, let first, _):
            let entry = map.entries[first]
            if case .exact(let runs) = entry.tempo { return Self.schedule(of: runs[0], meter: entry.meter, rate: rate) }
            return ClickSchedule(quarterNoteTempo: Self.firstTempo(of: entry), meter: entry.meter, rate: rate)
        }
    }

    /// The rhythm of the first bar: the first entry's pattern, if it has one.
    package var firstRhythm: Rhythm {
        guard case .map(let map, let first, _) = source else { return rhythm }
        return rhythm(of: map.entries[first])
    }

    /// The fastest stretch, whose clicks overlap most (for the headroom).
    package var fastestSchedule: ClickSchedule {
        switch source {
        case .trainer(let start, _, _, let until, let meter):
            return ClickSchedule(tempo: max(start, until), meter: meter, rate: rate)
        case .map(let map, let first, _):
            var fastest = firstSchedule
            for entry in map.entries[first...] {
                let tempos: [Tempo] = switch entry.tempo {
                case .constant(let tempo): [tempo]
                case .ramp(let from, let to): [from, to]
                case .perBeat(let tempos): tempos
                case .exact: []
                }
                if case .exact(let runs) = entry.tempo {
                    for run in runs {
                        let schedule = Self.schedule(of: run, meter: entry.meter, rate: rate)
                        if schedule.shortestInterval < fastest.shortestInterval { fastest = schedule }
                    }
                }
                for tempo in tempos {
                    let schedule = ClickSchedule(quarterNoteTempo: tempo, meter: entry.meter, rate: rate)
                    if schedule.shortestInterval < fastest.shortestInterval { fastest = schedule }
                }
            }
            return fastest
        }
    }

    /// The loudest entry's volume, found when the plan is made: every passage's level is relative to it.
    package let loudest: Float

    /// The level the plan plays at, for the whole track: its loudest entry's
    /// volume, at most 1 (a map whose entries go up to 2 plays its loudest at
    /// `--volume` and the others relative to it, never above full scale).
    package var level: Float { min(loudest, 1) }

    /// The loudest volume of the entries from `first` on, in one pass.
    static func loudest(of source: Source) -> Float {
        guard case .map(let map, let first, _) = source else { return 1 }
        return map.entries[first...].reduce(0) { max($0, $1.volume) }
    }

    /// The beats in the first `bars` bars of the plan; every beat of a plan
    /// that ends (a map without `--loop`) when `bars` is nil; nil when endless.
    /// Bars past the end of a map that ends are bars of its last entry's
    /// meter: its last tempo plays on, as it does for `--duration`.
    package func beats(inBars bars: Int64?) -> Int64? {
        switch source {
        case .trainer(_, _, _, _, let meter):
            return bars.map { $0 * Int64(meter.beatsPerBar) }
        case .map(let map, let first, let loops):
            guard let bars else { return loops ? nil : map.entries[first...].reduce(0) { $0 + $1.beats } }
            var beats: Int64 = 0, left = bars
            while left > 0 {
                for entry in map.entries[first...] where left > 0 {
                    let taken = min(left, entry.bars)
                    beats += taken * Int64(entry.meter.beatsPerBar)
                    left -= taken
                }
                if !loops { break }
            }
            if let last = map.entries.last { beats += left * Int64((map.meterAfterEnd ?? last.meter).beatsPerBar) }
            return beats
        }
    }

    // MARK: The passages

    /// The passage of the next stretch, or nil after the last of a plan that ends.
    private mutating func nextStretch() -> Passage? {
        switch source {
        case .trainer(_, let step, let barsPerStep, let until, let meter):
            let schedule = ClickSchedule(tempo: trainerTempo, meter: meter, rate: rate)
            let last = trainerTempo == until
            let passage = makePassage(schedule, rhythm: rhythm, volume: 1, more: !last)
            if last {
                finished = true
            } else {
                passTrainerStep(schedule, step: step, barsPerStep: barsPerStep, until: until)
            }
            return passage
        case .map(let map, let first, let loops):
            let entry = map.entries[self.entry]
            let volume = entry.volume / max(loudest, .leastNonzeroMagnitude)
            let entryRhythm = rhythm(of: entry)
            if inTail, let meter = map.meterAfterEnd {
                // The last tempo on, in whole bars of the meter in force.
                finished = true
                let schedule: ClickSchedule = if case .exact(let runs) = entry.tempo {
                    Self.schedule(of: runs[runs.count - 1], meter: meter, rate: rate)
                } else {
                    ClickSchedule(quarterNoteTempo: Self.lastTempo(of: entry), meter: meter, rate: rate)
                }
                return makePassage(schedule, rhythm: entryRhythm, volume: volume, more: false)
            }
            // The map's last passage plays on, unless bars of another meter follow it.
            let lastEntry = self.entry == map.entries.count - 1 && map.meterAfterEnd == nil
            let passage: Passage
            let beatsTaken: Int64
            switch entry.tempo {
            case .constant(let tempo):
                let schedule = ClickSchedule(quarterNoteTempo: tempo, meter: entry.meter, rate: rate)
                passage = makePassage(schedule, rhythm: entryRhythm, volume: volume, more: !(lastEntry && !loops))
                position.advance(by: entry.beats, of: schedule.framesPerClick)
                beatsTaken = entry.beats
            case .perBeat(let tempos):
                let schedule = ClickSchedule(quarterNoteTempo: tempos[Int(beatInEntry)], meter: entry.meter, rate: rate)
                let lastBeat = beatInEntry == entry.beats - 1
                passage = makePassage(schedule, rhythm: entryRhythm, volume: volume, more: !(lastEntry && lastBeat && !loops))
                position.advance(by: 1, of: schedule.framesPerClick)
                beatsTaken = 1
            case .exact(let runs):
                let (run, left) = Self.run(of: runs, containing: beatInEntry)
                let frames = runs[run].frames(at: rate)
                let schedule = Self.schedule(of: runs[run], meter: entry.meter, rate: rate)
                // A run on one exact grid when its fraction fits the grid; else a passage a beat, each placed exactly.
                beatsTaken = schedule.framesPerClick == frames ? left : 1
                let lastBeat = beatInEntry + beatsTaken == entry.beats
                passage = makePassage(schedule, rhythm: entryRhythm, volume: volume, more: !(lastEntry && lastBeat && !loops))
                position.advance(by: beatsTaken, of: frames)
            case .ramp(let from, let to):
                if beatInEntry == 0 { rampStart = position }
                let start = rampOffset(from: from, to: to, entry: entry, beat: beatInEntry)
                let end = rampOffset(from: from, to: to, entry: entry, beat: beatInEntry + 1)
                let lastBeat = beatInEntry == entry.beats - 1
                // The beat's own length as its grid, so its subdivisions split it evenly.
                // 2^-20 of a frame, coarser for beats so long the fraction would reach 2^39
                // (rounded, it stays below the grid's 2^40).
                var unit: Double = 0x1p20
                while (end - start) * unit >= 0x1p39, unit > 1 { unit /= 2 }
                let length = UInt64(((end - start) * unit).rounded())
                let millibpm = Int64((60_000 * Double(rate.framesPerSecond) / (end - start)).rounded())
                let schedule = ClickSchedule(framesPerClick: max(length, 1), over: UInt64(unit), tempo: Tempo(clamping: millibpm),
                                             meter: entry.meter, rate: rate)
                position = rampStart.advanced(byRealFrames: start)
                passage = makePassage(schedule, rhythm: entryRhythm, volume: volume, more: !(lastEntry && lastBeat && !loops))
                position = rampStart.advanced(byRealFrames: end)
                beatsTaken = 1
            }
            // The passage's bar counts from its first click; move on past what it plays.
            passBeats(beatsTaken, of: entry, map: map, first: first, loops: loops)
            return passage
        }
    }

    /// Moves the trainer on past a step played on `schedule`.
    private mutating func passTrainerStep(_ schedule: ClickSchedule, step: Int64, barsPerStep: Int64, until: Tempo) {
        let beats = barsPerStep * Int64(schedule.meter.beatsPerBar)
        position.advance(by: beats, of: schedule.framesPerClick)
        click += beats
        bar += barsPerStep
        songClock += beats * Self.clockTicks(of: schedule.meter)
        let moved = trainerTempo.millibeatsPerMinute + step
        trainerTempo = Tempo(clamping: step > 0 ? min(moved, until.millibeatsPerMinute) : max(moved, until.millibeatsPerMinute))
    }

    /// Counts `beats` beats of `entry` (the position has moved past them) and
    /// moves on to the next entry after its last beat.
    private mutating func passBeats(_ beats: Int64, of entry: TempoMap.Entry, map: TempoMap, first: Int, loops: Bool) {
        click += beats
        beatInEntry += beats
        songClock += beats * Self.clockTicks(of: entry.meter)
        if beatInEntry == entry.beats {
            bar += entry.bars
            beatInEntry = 0
            if self.entry == map.entries.count - 1 {
                if loops {
                    self.entry = first
                    songClock = firstClock
                } else if map.meterAfterEnd != nil, !inTail {
                    inTail = true
                } else {
                    finished = true
                }
            } else {
                self.entry += 1
            }
        }
    }

    // MARK: Moving on without passages

    /// Moves on as `next()` would, without making passages, past every passage
    /// followed by another starting at or before click `target`: the next one
    /// then plays `target` (or is the plan's last). A constant stretch is one
    /// exact sum, a ramp's beat its closed form from the ramp's start, a
    /// per-beat list each tempo once times its count (exact, so order does not
    /// matter): the same position as walking, to the bit.
    mutating func skip(upTo target: Int64) {
        // A passage ending at `end` is passed only if the next one, starting at `end`, is still planned.
        let stop = min(target, clickLimit - 1)
        while !finished {
            switch source {
            case .trainer(_, let step, let barsPerStep, let until, let meter):
                let schedule = ClickSchedule(tempo: trainerTempo, meter: meter, rate: rate)
                guard trainerTempo != until, click + barsPerStep * Int64(meter.beatsPerBar) <= stop else { return }
                passTrainerStep(schedule, step: step, barsPerStep: barsPerStep, until: until)
            case .map(let map, let first, let loops):
                // The tail is the plan's last passage: never skipped.
                guard !inTail else { return }
                let entry = map.entries[self.entry]
                let left = entry.beats - beatInEntry
                let lastOfAll = self.entry == map.entries.count - 1 && !loops && map.meterAfterEnd == nil
                // The rest of the entry, when a passage follows it; else its
                // beats up to the one playing `target` (never its last).
                if case .exact(let runs) = entry.tempo {
                    // A run's passage (or a beat's) at a time, as `nextStretch` makes them.
                    let (run, inRun) = Self.run(of: runs, containing: beatInEntry)
                    let frames = runs[run].frames(at: rate)
                    let oneGrid = Self.schedule(of: runs[run], meter: entry.meter, rate: rate).framesPerClick == frames
                    let taken = oneGrid ? inRun : 1
                    let lastOfPlan = lastOfAll && beatInEntry + taken == entry.beats
                    guard click + taken <= stop, !lastOfPlan else { return }
                    position.advance(by: taken, of: frames)
                    passBeats(taken, of: entry, map: map, first: first, loops: loops)
                    continue
                }
                let whole = click + left <= stop && !lastOfAll
                let beats = whole ? left : min(stop - click, left - 1)
                guard beats > 0 else { return }
                switch entry.tempo {
                case .constant(let tempo):
                    guard whole else { return }
                    let schedule = ClickSchedule(quarterNoteTempo: tempo, meter: entry.meter, rate: rate)
                    position.advance(by: beats, of: schedule.framesPerClick)
                case .perBeat(let tempos):
                    for (tempo, count) in Self.counted(tempos[Int(beatInEntry)..<Int(beatInEntry + beats)]) {
                        let schedule = ClickSchedule(quarterNoteTempo: tempo, meter: entry.meter, rate: rate)
                        position.advance(by: count, of: schedule.framesPerClick)
                    }
                case .exact:
                    break
                case .ramp(let from, let to):
                    if beatInEntry == 0 { rampStart = position }
                    position = rampStart.advanced(byRealFrames: rampOffset(from: from, to: to, entry: entry, beat: beatInEntry + beats))
                }
                passBeats(beats, of: entry, map: map, first: first, loops: loops)
                if !whole { return }
            }
        }
    }

    /// A passage from the current click and position, on `schedule`.
    private func makePassage(_ schedule: ClickSchedule, rhythm: Rhythm, volume: Float, more: Bool) -> Passage {
        let framesQ = schedule.framesPerClick.denominator * 2
        let subdivisionTicks = UInt64(rhythm.subdivision.ticksPerBeat)
        let polyrhythmTicks = UInt64(rhythm.polyrhythm?.clicks ?? 1)
        let clockTicks = Self.clockTicks(of: schedule.meter)
        let (frame, phase) = position.origin(beat: framesQ, subdivision: framesQ * subdivisionTicks,
                                             polyrhythm: framesQ * polyrhythmTicks, clock: framesQ * UInt64(clockTicks))
        var passage = Passage(schedule: schedule, rhythm: rhythm)
        passage.firstClick = click
        passage.originClick = click
        passage.originFrame = frame
        passage.phase = phase
        // Within a ramp or a per-beat list the bar began at an earlier click.
        let beatsPerBar = Int64(schedule.meter.beatsPerBar)
        passage.barClick = click - beatInEntry % beatsPerBar
        passage.barNumber = bar + beatInEntry / beatsPerBar
        passage.barClock = songClock - beatInEntry % beatsPerBar * clockTicks
        passage.volume = volume
        passage.plannedMore = more
        return passage
    }

    /// MIDI clocks a beat of `meter`: 24 a quarter note.
    private static func clockTicks(of meter: Meter) -> Int64 { 96 / Int64(meter.noteValue) }

    private func rhythm(of entry: TempoMap.Entry) -> Rhythm {
        var rhythm = self.rhythm
        rhythm.pattern = entry.pattern
        return rhythm
    }

    private static func lastTempo(of entry: TempoMap.Entry) -> Tempo {
        switch entry.tempo {
        case .constant(let tempo), .ramp(_, let tempo): tempo
        case .perBeat(let tempos): tempos[tempos.count - 1]
        case .exact(let runs): runs[runs.count - 1].tempo
        }
    }

    private static func firstTempo(of entry: TempoMap.Entry) -> Tempo {
        switch entry.tempo {
        case .constant(let tempo), .ramp(let tempo, _): tempo
        case .perBeat(let tempos): tempos[0]
        case .exact(let runs): runs[0].tempo
        }
    }

    /// The run of `runs` that beat `beat` of the entry is in, and how many of its beats are left from there.
    private static func run(of runs: [ExactBeats], containing beat: Int64) -> (index: Int, left: Int64) {
        var start: Int64 = 0
        for (index, run) in runs.enumerated() {
            if beat < start + run.count { return (index, start + run.count - beat) }
            start += run.count
        }
        preconditionFailure("beat \(beat) is past the entry's runs")
    }

    /// The grid of a run of exact beats: exact when its fraction of frames
    /// fits the grid's 40 bits; else the nearest grid with a denominator of
    /// at most 2^20, for the subdivisions of a single beat (whose own frame
    /// the plan's exact position gives).
    static func schedule(of run: ExactBeats, meter: Meter, rate: SampleRate) -> ClickSchedule {
        var (numerator, denominator) = run.frames(at: rate)
        if numerator >= 1 << 40 || denominator >= 1 << 40 {
            let unit: UInt64 = 1 << 20
            numerator = UInt64((Int128(numerator) * Int128(unit) * 2 + Int128(denominator)) / (2 * Int128(denominator)))
            denominator = unit
            while numerator >= 1 << 40 {
                numerator = (numerator + 1) / 2
                denominator /= 2
            }
        }
        return ClickSchedule(framesPerClick: max(numerator, 1), over: max(denominator, 1), tempo: run.tempo, meter: meter, rate: rate)
    }

    /// Frames from a ramp's start to its beat `b`: the tempo moves linearly
    /// with beat position from `from` to `to` over the entry's `n` beats, so
    /// the time is `(240 / d) * n / (to - from) * ln(T(b) / from)` seconds.
    private func rampOffset(from: Tempo, to: Tempo, entry: TempoMap.Entry, beat: Int64) -> Double {
        guard beat > 0 else { return 0 }
        let first = Double(from.millibeatsPerMinute) / 1000, last = Double(to.millibeatsPerMinute) / 1000
        let beats = Double(entry.beats)
        let seconds = 240 / Double(entry.meter.noteValue) * beats / (last - first)
            * log1p((last - first) * Double(beat) / (beats * first))
        return seconds * Double(rate.framesPerSecond)
    }

    /// Each tempo of `tempos` once, with the number of beats at it, in the
    /// order each first comes. A long list counts into a table of every
    /// tempo there can be (a million thousandths of a bpm): no hashing.
    static func counted(_ tempos: ArraySlice<Tempo>) -> [(tempo: Tempo, count: Int64)] {
        var distinct: [Tempo] = []
        guard tempos.count >= 4096 else {
            var counts: [Tempo: Int64] = [:]
            for tempo in tempos {
                if counts[tempo] == nil { distinct.append(tempo) }
                counts[tempo, default: 0] += 1
            }
            return distinct.map { ($0, counts[$0]!) }
        }
        let lowest = Tempo.range.lowerBound
        var counts = [Int64](repeating: 0, count: Int(Tempo.range.upperBound - lowest) + 1)
        for tempo in tempos {
            let index = Int(tempo.millibeatsPerMinute - lowest)
            if counts[index] == 0 { distinct.append(tempo) }
            counts[index] += 1
        }
        return distinct.map { ($0, counts[Int($0.millibeatsPerMinute - lowest)]) }
    }

    /// Where the plan's beat `limit` falls (nil: where a plan that ends
    /// ends), for sizing a file; nil for an endless plan without a limit.
    /// Skips to the passages that place it: it never walks the whole plan.
    package func endFrame(beats limit: Int64?) -> Int64? {
        var plan = self
        guard let limit else {
            guard plan.beats(inBars: nil) != nil else { return nil }
            plan.skip(upTo: .max)
            while plan.next() != nil {}
            return plan.position.nearestFrame
        }
        plan.skip(upTo: limit - 1)
        var last: Passage?
        while let passage = plan.next(), passage.firstClick < limit { last = passage }
        return last.map { $0.frame(ofClick: limit) } ?? firstSchedule.frame(ofClick: limit)
    }
}
