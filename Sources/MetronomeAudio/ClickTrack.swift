import MetronomeSupport
import MetronomeTiming
import MetronomeLink

/// The click track as a stream of frames: the passage says where clicks
/// start, the mixer plays them. Knows no clock and no device.
///
/// `render` starts each click inside the block at its exact offset, so any
/// number of clicks fit in a block and a block boundary never moves one. Three
/// voices merge in time order (the beats, the subdivisions, a polyrhythm's
/// second voice), each click timed by the passage of its beat. Live playback
/// and file rendering run this same code. `apply` changes the passage at the
/// first frame not yet rendered; a plan's passages (a tempo map, the speed
/// trainer), worked out ahead on another thread, arrive through `plan`, each
/// taking over at its first click.
package final class ClickTrack: @unchecked Sendable {
    /// The schedule the track starts with.
    package let schedule: ClickSchedule
    package let length: TrackLength
    /// The frame after the last one of the track; nil while it is endless.
    package private(set) var endFrame: Int64?
    /// The gain applied to every sound: the volume, reduced if overlapping clicks would clip.
    package private(set) var gain: Float
    /// Where clicks fall now; changed only by `apply` and at a pending meter change.
    package private(set) var passage: Passage
    /// The passage that times beat `nextClick - 1`, whose subdivisions and
    /// second-voice clicks may still be due after a change at `nextClick`.
    private var previous: Passage
    /// Whether clicks are silent (they still count, and the pendulum still swings).
    package private(set) var muted = false

    /// The next frame `render` produces.
    package private(set) var position: Int64 = 0
    /// The next beat to start.
    package private(set) var nextClick: Int64 = 0
    /// The next subdivision: its beat, and its index in the beat (1 to N-1).
    private var subdivisionBeat: Int64 = 0
    private var subdivisionIndex = 1
    /// The next click of the second voice: the first beat of its bar, and its index in the bar.
    private var polyrhythmBar: Int64 = 0
    private var polyrhythmIndex: Int64 = 0
    /// No click starts at or after this beat (the end of `--bars`, after the count-in).
    private let clickLimit: Int64
    /// No click starts at or after this frame (the end of `--duration`).
    private let frameLimit: Int64
    /// Beats per bar asked for from the next bar on.
    private var pendingBeats: Int?
    /// A tempo asked for from the next bar on (the adaptive trainer's step), and the gain that comes with it.
    private var pendingTempo: (tempo: Tempo, gain: Float)?
    private let soundLengths: (beat: Int64, bell: Int64, subdivision: Int64, polyrhythm: Int64)

    /// The spoken count's words (`--count voice`), if the beats are spoken: each
    /// word starts its onset's frames before its click, so the onset is on the click.
    package let count: CountVoice?
    /// The longest a word rings on after its click's frame.
    private let wordTail: Int64
    /// The next click to speak: its beat, and its index in the beat (0 the beat itself, 1 to N−1 between).
    private var wordBeat: Int64 = 0
    private var wordIndex = 0

    private let mixer: Mixer
    /// Where started clicks are recorded for the trace and the display, if anywhere.
    package var clickLog: ClickLog?
    /// The clicks started by the current `render` call, if kept (MIDI notes out): the caller empties it before each.
    package var startedInBlock: StartedClicks?
    /// `--midi-clock`: the clock's messages of the current `render` call, at
    /// their frames, if kept (the caller empties it before each).
    package var clockInBlock: MIDIMessages?
    /// The next MIDI clock tick: its beat, and its index in the beat (0 on the beat).
    private var clockBeat: Int64 = 0
    private var clockIndex: Int64 = 0
    /// While the clock's receiver plays (after a Start or Continue), the song
    /// position of the last tick sent, in clocks; nil while it stands.
    private var clockSongPosition: Int64?
    /// Whether a beat was placed from outside yet (Link, a transport, a MIDI clock): the clock waits for the first.
    private var clockPlaced = false
    /// Where each new passage is handed on (to the picture), if anywhere.
    package var passageLog: LockFreeQueue<Passage>?
    /// Passages a plan (a tempo map, the speed trainer) has worked out ahead,
    /// each taking over at its first click; fed by `PlanFeeder` off this thread.
    package private(set) var plan: LockFreeQueue<Passage>?
    /// A setlist's two plan queues: the song playing reads one, the next song's plan is fed into the other.
    package var songPlans: (LockFreeQueue<Passage>, LockFreeQueue<Passage>)?
    /// Where each song started, for the view and the trace (written here, read by the live loop).
    package var songLog: LockFreeQueue<SongStart>?
    /// The song plan (0 or 1 of `songPlans`) to switch to at the next bar line, or at the resume when paused.
    private var pendingSong: Int?
    /// A song's passages count from click 0, frame 0 and bar 0; where it started moves them there.
    private var songOrigin = (click: Int64(0), frame: Int64(0), bar: Int64(0))
    /// Whether the plan still leads: a tempo, tap, meter or pause key leaves it for good.
    package private(set) var followsPlan = true

    /// A track of `sounds` (the beat and the bell stand in for a subdivision or second voice not given).
    package convenience init(schedule: ClickSchedule, sounds: ClickSounds, volume: Float = 1, length: TrackLength = .endless,
                            rhythm: Rhythm = .plain) {
        self.init(schedule: schedule, beat: sounds.beat, bell: sounds.bell, volume: volume, length: length,
                  rhythm: rhythm, subdivision: sounds.subdivision, polyrhythm: sounds.polyrhythm, count: sounds.count)
    }

    /// A track that follows `plan`, whose passages `feeder` hands over ahead of time.
    /// `fastest`: a faster stretch still to come than the plan's own (a setlist's next songs).
    package convenience init(plan: TempoPlan, feeder: PlanFeeder, sounds: ClickSounds, volume: Float = 1,
                            length: TrackLength = .endless, fastest: ClickSchedule? = nil) {
        let own = plan.fastestSchedule
        self.init(schedule: plan.firstSchedule, beat: sounds.beat, bell: sounds.bell, volume: volume * plan.level,
                  length: length, rhythm: plan.firstRhythm, subdivision: sounds.subdivision, polyrhythm: sounds.polyrhythm,
                  count: sounds.count, plan: feeder.queue, fastest: fastest.map { $0.shortestInterval < own.shortestInterval ? $0 : own } ?? own)
        planLevel = plan.level
    }

    /// The level a plan plays at (its loudest entry's volume, at most 1): the
    /// keys' volume and gain scale from it, so entries keep their levels after a key.
    package private(set) var planLevel: Float = 1

    /// The beat and bell, and for a rhythm that uses them the subdivision and second-voice sounds
    /// (the beat and the bell stand in for them when not given).
    package init(schedule: ClickSchedule, beat: Sound, bell: Sound, volume: Float = 1, length: TrackLength = .endless,
                rhythm: Rhythm = .plain, subdivision: Sound? = nil, polyrhythm: Sound? = nil, count: CountVoice? = nil,
                plan: LockFreeQueue<Passage>? = nil, fastest: ClickSchedule? = nil) {
        _ = ClickOutputWarmUp.done
        let subdivision = subdivision ?? beat, polyrhythm = polyrhythm ?? bell
        for sound in [beat, bell, subdivision, polyrhythm] + (count?.sounds ?? []) {
            precondition(sound.rate == schedule.rate, "sounds must be at the schedule's rate")
        }
        self.count = count
        wordTail = count.map { count in zip(count.sounds, count.onsets).map { Int64($0.samples.count) - $1 }.max() ?? 0 } ?? 0
        self.schedule = schedule
        self.length = length
        passage = Passage(schedule: schedule, rhythm: rhythm)
        passage.plannedMore = plan != nil
        previous = passage
        self.plan = plan
        soundLengths = (Int64(beat.samples.count), Int64(bell.samples.count),
                        Int64(subdivision.samples.count), Int64(polyrhythm.samples.count))
        let sounds = ClickSounds(beat: beat, bell: bell, subdivision: subdivision, polyrhythm: polyrhythm, count: count)
        gain = sounds.headroom(rhythm: rhythm, meter: schedule.meter).gain(for: fastest ?? schedule, volume: volume)

        // Enough voices for every click that can still ring at the fastest tempo a key can reach, plus the one starting.
        let fastest = ClickSchedule(tempo: Tempo(clamping: .max), rate: schedule.rate).shortestInterval
        let clicksPerBeat = Int64(rhythm.subdivision.clicksPerBeat) + Int64(rhythm.polyrhythm?.clicks ?? 0)
        let longestWord = count?.sounds.map { Int64($0.samples.count) }.max() ?? 0
        let longest = max(soundLengths.beat, soundLengths.bell, soundLengths.subdivision, soundLengths.polyrhythm, longestWord)
        // A word beside each click it does not replace.
        let capacity = Int((longest / max(fastest, 1) + 2) * clicksPerBeat) * (count == nil ? 1 : 2)
        // In `ClickVoice` order: a sound's slot is its voice; the words after them, in `CountVoice.Word` order.
        let gain = gain
        mixer = Mixer(sounds: [(bell.samples, gain), (beat.samples, gain), (subdivision.samples, gain), (polyrhythm.samples, gain)]
                        + (count?.sounds ?? []).map { ($0.samples, gain) },
                      voiceCapacity: capacity)

        let countInClicks = rhythm.countInBars * Int64(schedule.meter.beatsPerBar)
        switch length {
        case .endless:
            clickLimit = .max
            frameLimit = .max
        case .playtime(let playtime):
            clickLimit = .max
            frameLimit = playtime.frames(at: schedule.rate)
        case .bars(let bars):
            clickLimit = countInClicks + bars * Int64(schedule.meter.beatsPerBar)
            frameLimit = .max
        case .beats(let beats):
            clickLimit = countInClicks + beats
            frameLimit = .max
        }
        endFrame = end(of: passage)
    }

    private enum Slot {
        static let bell = ClickVoice.bell.rawValue, beat = ClickVoice.beat.rawValue
        static let subdivision = ClickVoice.subdivision.rawValue, polyrhythm = ClickVoice.polyrhythm.rawValue
    }

    /// The end of a finite track, given the passage that plays to it: the
    /// frame after the last bar, or later while the last bar's sounds still ring.
    private func end(of passage: Passage) -> Int64? {
        switch length {
        case .endless: return nil
        case .playtime: return frameLimit
        case .bars, .beats:
            // Not yet known while the passage playing to the end is still to come.
            guard !passage.paused, !(passage.plannedMore && followsPlan) else { return nil }
            var end = passage.frame(ofClick: clickLimit)
            // No local function capturing `end`: a debug build boxes the captured variable on the heap.
            let last = clickLimit - 1
            let barStart = last - passage.bar(ofClick: last).beat
            // A while loop: a debug build's generic ClosedRange iterator allocates.
            var click = max(barStart, passage.firstClick)
            while click <= last {
                defer { click += 1 }
                guard let sound = passage.sound(ofClick: click) else { continue }
                end = max(end, passage.frame(ofClick: click) + max(sound == .beat ? soundLengths.beat : soundLengths.bell, wordTail))
            }
            let subdivision = passage.rhythm.subdivision
            if subdivision.clicksPerBeat > 1 {
                let tick = last * subdivision.ticksPerBeat + subdivision.tick(ofClick: subdivision.clicksPerBeat - 1)
                end = max(end, passage.frame(ofSubdivisionTick: tick) + max(soundLengths.subdivision, wordTail))
            }
            if let polyrhythm = passage.rhythm.polyrhythm, barStart >= passage.firstClick {
                let index = polyrhythm.clicksPerBar(beatsPerBar: passage.meter.beatsPerBar) - 1
                let tick = barStart * Int64(polyrhythm.clicks) + polyrhythm.tick(ofClick: index)
                end = max(end, passage.frame(ofPolyrhythmTick: tick) + soundLengths.polyrhythm)
            }
            return end
        }
    }

    /// Whether every frame of a finite track has been rendered.
    package var isFinished: Bool {
        guard let endFrame else { return false }
        return position >= endFrame
    }

    /// The passage that times beat `click`; nil when it falls in a pause.
    @inline(__always)
    private func timing(ofBeat click: Int64) -> Passage? {
        if click >= passage.firstClick { return passage.paused ? nil : passage }
        return previous
    }

    /// Fills `output[0..<count]` with the next frames of the track and returns
    /// how many belong to it (fewer than `count` only at the end of a finite
    /// track; the rest is silence). Allocates nothing.
    @discardableResult
    package func render(into output: UnsafeMutablePointer<Float>, count: Int) -> Int {
        render(output, count: count)
    }

    /// Fills `voices[…][0..<count]` as `render(into:count:)` fills its one
    /// buffer, each click into the buffer of its voice; summed, they are that
    /// buffer. Allocates nothing.
    @discardableResult
    package func render(into voices: VoiceBuffers, count: Int) -> Int {
        render(voices, count: count)
    }

    /// `render(into:count:)` for either output; specialized for each.
    @discardableResult
    func render<Output: ClickOutput>(_ output: Output, count: Int) -> Int {
        output.update(repeating: 0, count: count)
        let frames = endFrame.map { Int(max(0, min(Int64(count), $0 - position))) } ?? count
        guard frames > 0 else { return 0 }
        mixer.mix(into: output, count: frames)
        let blockEnd = min(position + Int64(frames), frameLimit)
        // No click of a paused passage's earlier beats after the pause.
        let stop = passage.paused ? min(blockEnd, passage.pauseFrame) : blockEnd
        while true {
            takePlannedPassages()
            if nextClick < clickLimit, let slot = pendingSong, !passage.paused, passage.startsBar(nextClick) {
                let frame = passage.frame(ofClick: nextClick)
                songLog?.push(SongStart(plan: slot, frame: frame))
                startSong(slot, click: nextClick, frame: frame, bar: passage.bar(ofClick: nextClick).bar)
            }
            if nextClick < clickLimit, let beats = pendingBeats, !passage.paused, passage.startsBar(nextClick) {
                pendingBeats = nil
                change(to: passage.changingMeter(beats: beats, next: nextClick))
            }
            if nextClick < clickLimit, let (tempo, gain) = pendingTempo, !passage.paused, passage.startsBar(nextClick) {
                // The bar line's frame on the grid before it; the new grid counts from there.
                pendingTempo = nil
                setGain(gain)
                change(to: passage.changingTempo(to: tempo, next: nextClick))
            }
            let beat = nextBeatFrame()
            let subdivision = nextSubdivisionFrame()
            let polyrhythm = nextPolyrhythmFrame()
            let clock = nextClockFrame()
            let word = nextWord()
            // In time order; at the same frame the beat first, for it may start a new passage.
            if beat < stop, beat <= subdivision, beat <= polyrhythm, beat <= clock, beat <= word.start {
                startBeat(at: beat, into: output, count: frames)
            } else if subdivision < stop, subdivision <= polyrhythm, subdivision <= clock, subdivision <= word.start {
                startSubdivision(at: subdivision, into: output, count: frames)
            } else if polyrhythm < stop, polyrhythm <= clock, polyrhythm <= word.start {
                startPolyrhythm(at: polyrhythm, into: output, count: frames)
            } else if clock < stop, clock <= word.start {
                sendClockTick(at: clock)
            } else if word.start < stop {
                startWord(word, into: output, count: frames)
            } else {
                break
            }
        }
        if passage.paused { stopClock(at: max(passage.pauseFrame, position)) }
        // A plan's last passage, taken in this block, may have put the end inside it.
        let produced = endFrame.map { Int(min(Int64(frames), max(0, $0 - position))) } ?? frames
        position += Int64(produced)
        return produced
    }

    /// Fills `output[0..<count]` as `render` does, but with the beats of an
    /// Ableton Link session where the conductor places them, each on its
    /// frame: the bell on the session's downbeat, the pattern's sound on the
    /// other beats. The passage follows the clicks for the picture and the
    /// keys: a new one when the tempo or the bar changes or the clicks move
    /// more than a millisecond off its grid. Allocates nothing.
    @discardableResult
    package func render(into output: UnsafeMutablePointer<Float>, count: Int, following link: LinkConductor) -> Int {
        render(output, count: count, following: link)
    }

    /// `render(into:count:following:)` by voice, as `render(into:count:)` with `VoiceBuffers`.
    @discardableResult
    package func render(into voices: VoiceBuffers, count: Int, following link: LinkConductor) -> Int {
        render(voices, count: count, following: link)
    }

    /// `render(into:count:following:)` for either output; specialized for each.
    @discardableResult
    func render<Output: ClickOutput>(_ output: Output, count: Int, following link: LinkConductor) -> Int {
        output.update(repeating: 0, count: count)
        let frames = endFrame.map { Int(max(0, min(Int64(count), $0 - position))) } ?? count
        guard frames > 0 else { return 0 }
        mixer.mix(into: output, count: frames)
        link.clicks(inPeriodFrom: position, frames: Int64(frames)) { click, tempo in
            startLinked(click, tempo: tempo, quantum: link.quantum, into: output, count: frames)
        }
        if !link.sounding { rest(at: Tempo(clamping: Int64((link.tempo * 1_000).rounded()))) }
        sendClockTicks(before: position + Int64(frames))
        position += Int64(frames)
        return frames
    }

    /// No beat of the session is to be heard (its line not yet fitted, its transport stopped, a
    /// pause): the passage rests from here at the session's tempo, so the picture waits with the clicks.
    private func rest(at tempo: Tempo) {
        var next = passage.paused ? passage : passage.pausing(next: nextClick, position: position)
        if next.tempo != tempo { next = next.changingTempo(to: tempo, next: nextClick) }
        if next != passage { change(to: next) }
        stopClock(at: position)
        skipClockTicks(toBeat: nextClick)
    }

    private func startLinked<Output: ClickOutput>(_ click: LinkClick, tempo bpm: Double, quantum: Int, into output: Output, count: Int) {
        let beats = Int64(quantum)
        let bar = click.beat >= 0 ? click.beat / beats : -((-click.beat + beats - 1) / beats)
        startPlaced(at: click.frame, bar: bar, beatInBar: click.beat - bar * beats, tempo: Tempo(clamping: Int64((bpm * 1_000).rounded())),
                    beatsPerBar: quantum, into: output, count: count)
    }

    /// Starts the click of beat `beatInBar` of `bar` at `frame`, where something else
    /// (a Link session, a JACK transport) placed it; the passage follows it for the
    /// picture and the keys: a new one when the tempo or the bar changes or the
    /// click lies more than a millisecond off its grid; with a MIDI clock, when
    /// it lies off its grid at all, so the beat's first clock is on its click
    /// (Link places beats a frame either side of an even grid).
    private func startPlaced<Output: ClickOutput>(at frame: Int64, bar: Int64, beatInBar: Int64, tempo: Tempo, beatsPerBar: Int,
                                                  noteValue: Int? = nil, into output: Output, count: Int) {
        // Where the clicks were not placed yet (the first beat), or were placed elsewhere (a relocated transport),
        // the clock's song moves on from this beat; else the ticks of the beats before are sent up to it.
        // Components compared, not tuples: a tuple's == builds its type's metadata (an allocation) on first use.
        let placed = passage.bar(ofClick: nextClick)
        let sameBeat = placed.bar == bar && placed.beat == beatInBar
        let continues = clockPlaced && !passage.paused && sameBeat
        if !continues { skipClockTicks(toBeat: nextClick) }
        clockPlaced = true
        sendClockTicks(ofBeatsBefore: nextClick, by: frame)
        let tolerance = max(1, schedule.rate.framesPerSecond / 1_000)
        let drift = passage.frame(ofClick: nextClick) - frame
        var newNoteValue = passage.meter.noteValue
        if let noteValue, Meter(beatsPerBar: beatsPerBar, noteValue: noteValue) != nil { newNoteValue = noteValue }
        if passage.paused || passage.tempo != tempo || passage.meter.beatsPerBar != beatsPerBar || passage.meter.noteValue != newNoteValue
            || drift > tolerance || drift < -tolerance || !sameBeat || (clockInBlock != nil && drift != 0) {
            var next = passage
            let meter = Meter(beatsPerBar: beatsPerBar, noteValue: newNoteValue) ?? passage.meter
            next.grid = ClickSchedule(tempo: tempo, meter: meter, rate: schedule.rate)
            next.paused = false
            next.firstClick = nextClick
            next.originClick = nextClick
            next.originFrame = frame
            next.phase = .zero
            // The song position goes on from the bar's start where the beats go on (a change of tempo or
            // meter); after a jump it is whole bars of this meter: all a Link session or a transport's bars say.
            next.barClock = continues ? passage.songClock(ofClick: nextClick - beatInBar) : bar * Int64(beatsPerBar) * next.clockTicksPerBeat
            next.barClick = nextClick - beatInBar
            next.barNumber = bar
            change(to: next)
        }
        if !muted, let sound = passage.sound(ofClick: nextClick) {
            start(sound, of: passage, slot: sound == .beat ? Slot.beat : Slot.bell, click: nextClick, index: 0,
                  bar: max(0, bar), beatInBar: beatInBar, at: frame, into: output, count: count)
        }
        nextClick += 1
    }

    /// Fills `output[0..<count]` as `render` does, but with the clicks a JACK
    /// transport's timebase master places (`TransportFollower`): `clicks` at
    /// their offsets in this period, `tempo` and `beatsPerBar` the master's;
    /// nil `clicks`: the transport is stopped, the passage rests. Allocates nothing.
    /// `noteValue`: the master's beat type, if it says one; `retime`: its tempo changes reach the
    /// cycle after their beat (a transport's master), so the clock's ticks of that beat are timed again.
    func render<Output: ClickOutput>(_ output: Output, count: Int, placing clicks: UnsafeBufferPointer<FollowedClick>?,
                                     tempo: Tempo, beatsPerBar: Int, noteValue: Int? = nil, retime: Bool = false) {
        output.update(repeating: 0, count: count)
        mixer.mix(into: output, count: count)
        if let clicks {
            if retime { retimeClock(to: tempo) }
            var index = 0
            while index < clicks.count {
                let click = clicks[index]
                // The master counts bars from 1, the track from 0.
                startPlaced(at: position + Int64(click.offset), bar: click.bar - 1, beatInBar: Int64(click.beatInBar), tempo: tempo,
                            beatsPerBar: beatsPerBar, noteValue: noteValue, into: output, count: count)
                index += 1
            }
        } else {
            rest(at: tempo)
        }
        sendClockTicks(before: position + Int64(count))
        position += Int64(count)
    }

    private func nextBeatFrame() -> Int64 {
        guard nextClick < clickLimit, !passage.paused else { return .max }
        return passage.frame(ofClick: nextClick)
    }

    private func nextSubdivisionFrame() -> Int64 {
        let subdivision = passage.rhythm.subdivision
        guard subdivision.clicksPerBeat > 1, subdivisionBeat < clickLimit, let timing = timing(ofBeat: subdivisionBeat) else { return .max }
        let tick = subdivisionBeat * subdivision.ticksPerBeat + subdivision.tick(ofClick: subdivisionIndex)
        return timing.frame(ofSubdivisionTick: tick)
    }

    private func nextPolyrhythmFrame() -> Int64 {
        guard let polyrhythm = passage.rhythm.polyrhythm else { return .max }
        // Past the bar's last click: the next bar. The bar's length is its
        // meter's, which every beat of it shares (meters change at bar starts).
        while let bar = timing(ofBeat: max(polyrhythmBar, nextClick - 1)),
              polyrhythmIndex >= polyrhythm.clicksPerBar(beatsPerBar: bar.meter.beatsPerBar) {
            polyrhythmBar += Int64(bar.meter.beatsPerBar)
            polyrhythmIndex = 0
        }
        let tick = polyrhythmBar * Int64(polyrhythm.clicks) + polyrhythm.tick(ofClick: polyrhythmIndex)
        let click = tick / Int64(polyrhythm.clicks)
        guard click < clickLimit, let timing = timing(ofBeat: click) else { return .max }
        return timing.frame(ofPolyrhythmTick: tick)
    }

    private func startBeat<Output: ClickOutput>(at frame: Int64, into output: Output, count: Int) {
        // A beat's clock ticks never run past the next beat (a tap or a key moved it earlier): those left, here.
        sendClockTicks(ofBeatsBefore: nextClick, by: frame)
        let (bar, beat) = passage.bar(ofClick: nextClick)
        if !muted, !passage.isMuted(click: nextClick, bar: bar), let sound = passage.sound(ofClick: nextClick) {
            // A spoken beat's word stands in for its click; the bell and accents keep theirs.
            start(sound, of: passage, slot: sound == .beat ? Slot.beat : Slot.bell, click: nextClick, index: 0,
                  bar: bar, beatInBar: beat, at: frame, into: output, count: count,
                  sounding: sound != .beat || word(index: 0, bar: bar, beat: beat, of: passage) == nil)
        }
        nextClick += 1
    }

    private func startSubdivision<Output: ClickOutput>(at frame: Int64, into output: Output, count: Int) {
        if let timing = timing(ofBeat: subdivisionBeat) {
            let (bar, beat) = timing.bar(ofClick: subdivisionBeat)
            if !muted, !timing.isMuted(click: subdivisionBeat, bar: bar) {
                start(.subdivision, of: timing, slot: Slot.subdivision, click: subdivisionBeat, index: subdivisionIndex,
                      bar: bar, beatInBar: beat, at: frame, into: output, count: count,
                      sounding: word(index: subdivisionIndex, bar: bar, beat: beat, of: timing) == nil)
            }
        }
        advanceSubdivision()
    }

    private func startPolyrhythm<Output: ClickOutput>(at frame: Int64, into output: Output, count: Int) {
        if let timing = timing(ofBeat: polyrhythmBar) {
            let (bar, _) = timing.bar(ofClick: polyrhythmBar)
            if !muted, !timing.rhythm.muting.mutes(bar: bar) {
                start(.polyrhythm, of: timing, slot: Slot.polyrhythm, click: polyrhythmBar, index: Int(polyrhythmIndex),
                      bar: bar, beatInBar: 0, at: frame, into: output, count: count)
            }
        }
        polyrhythmIndex += 1
    }

    @inline(__always)
    private func start<Output: ClickOutput>(_ sound: ClickSound, of timing: Passage, slot: Int, click: Int64, index: Int, bar: Int64,
                                            beatInBar: Int64, at frame: Int64, into output: Output, count: Int, sounding: Bool = true) {
        guard frame >= position else { return }  // due in a stretch that was skipped
        let level = timing.rhythm.level(of: sound, bar: bar) * timing.volume
        if sounding { mixer.start(slot: slot, level: level, at: Int(frame - position), into: output, count: count) }
        guard clickLog != nil || startedInBlock != nil else { return }
        let started = StartedClick(click: click, frame: frame, bar: bar, beatInBar: Int32(beatInBar), sound: sound, index: Int32(index), level: level)
        clickLog?.push(started)
        startedInBlock?.append(started)
    }

    // MARK: The spoken count (`--count voice`)

    /// The passage that times beat `click` for a word, which starts before its
    /// click: a planned passage not yet taken that times it, if any.
    @inline(__always)
    private func wordTiming(ofBeat click: Int64) -> Passage? {
        if followsPlan, let planned = peekPlanned(), planned.firstClick <= click { return planned }
        return timing(ofBeat: click)
    }

    /// The next word to start: where it starts (its click's frame less its
    /// onset; `.max` for none), which word and at what level. Passes over the
    /// clicks not spoken and those whose frame is already past.
    private func nextWord() -> (start: Int64, word: Int, level: Float) {
        let none = (start: Int64.max, word: 0, level: Float(0))
        guard let count else { return none }
        while true {
            guard wordBeat < clickLimit, let timing = wordTiming(ofBeat: wordBeat) else { return none }
            let subdivision = timing.rhythm.subdivision
            if wordIndex >= subdivision.clicksPerBeat {
                wordBeat += 1
                wordIndex = 0
                continue
            }
            let (bar, beat) = timing.bar(ofClick: wordBeat)
            var word: CountVoice.Word?
            let frame: Int64
            var level: Float = 0
            if wordIndex == 0 {
                frame = timing.frame(ofClick: wordBeat)
                if !timing.isMuted(click: wordBeat, bar: bar), let sound = timing.sound(ofClick: wordBeat) {
                    word = self.word(index: 0, bar: bar, beat: beat, of: timing)
                    level = timing.rhythm.level(of: sound == .accent ? .beat : sound, bar: bar) * timing.volume
                }
            } else {
                frame = timing.frame(ofSubdivisionTick: wordBeat * subdivision.ticksPerBeat + subdivision.tick(ofClick: wordIndex))
                if !timing.isMuted(click: wordBeat, bar: bar) {
                    word = self.word(index: wordIndex, bar: bar, beat: beat, of: timing)
                    level = timing.rhythm.level(of: .subdivision, bar: bar) * timing.volume
                }
            }
            guard frame < frameLimit else { return none }
            if let word, frame >= position {
                return (frame - count.onsets[word.rawValue], word.rawValue, level)
            }
            wordIndex += 1
        }
    }

    /// The word spoken on click `index` (0 the beat) of beat `beat` of bar `bar`, timed by
    /// `timing`; nil without a count or where none is spoken, and there the click sounds.
    @inline(__always)
    private func word(index: Int, bar: Int64, beat: Int64, of timing: Passage) -> CountVoice.Word? {
        guard let count else { return nil }
        return CountVoice.Word.spoken(bar: bar, beat: beat, index: index, clicksPerBeat: timing.rhythm.subdivision.clicksPerBeat,
                                      subdivided: count.subdivided)
    }

    /// Starts `word` where `nextWord` placed it (what fell before this block, cut), and moves on.
    private func startWord<Output: ClickOutput>(_ word: (start: Int64, word: Int, level: Float), into output: Output, count: Int) {
        wordIndex += 1
        guard !muted else { return }
        mixer.start(slot: Self.firstWordSlot + word.word, level: word.level, at: Int(max(0, word.start - position)),
                    skipping: Int(max(0, position - word.start)), into: output, count: count)
    }

    /// The mixer's slot of the first word: after the four voices'.
    private static let firstWordSlot = ClickVoice.allCases.count

    /// Jumps to `frame` as if the frames between had played: sounds ringing
    /// move on, clicks that fell due in the gap are dropped, and the next click
    /// of each voice is the first one of the same grid at or after `frame`.
    package func skip(to frame: Int64) {
        guard frame > position else { return }
        mixer.advance(by: frame - position)
        position = frame
        guard !passage.paused else { return }
        takePlannedPassages(startingBy: frame)
        var next = min(passage.firstClick(atOrAfter: frame), clickLimit)
        if followsPlan, let planned = peekPlanned() { next = min(next, planned.firstClick) }
        nextClick = max(nextClick, next)
        // The other voices pass over what fell due in the gap, the same way.
        while nextSubdivisionFrame() < frame { advanceSubdivision() }
        while nextPolyrhythmFrame() < frame { polyrhythmIndex += 1 }
        // The clock's song jumps past the lost time: from the next beat, after a Stop.
        skipClockTicks(toBeat: nextClick)
    }

    /// The planned passages due: those whose first click is the next beat
    /// (or already passed), and in a skip those that start by `frame`.
    @inline(__always)
    private func takePlannedPassages(startingBy frame: Int64 = .min) {
        guard followsPlan, let plan else { return }
        while let planned = peekPlanned(),
              planned.firstClick <= nextClick || planned.frame(ofClick: planned.firstClick) <= frame {
            _ = plan.pop()
            change(to: planned)
        }
    }

    /// The next planned passage, moved to where its song started.
    @inline(__always)
    private func peekPlanned() -> Passage? {
        guard var planned = plan?.peek() else { return nil }
        planned.firstClick += songOrigin.click
        planned.originClick += songOrigin.click
        planned.barClick += songOrigin.click
        planned.originFrame += songOrigin.frame
        planned.barNumber += songOrigin.bar
        return planned
    }

    /// Starts the song whose plan is `songPlans[slot]` at click `click`, frame `frame`, bar `bar`: a bar line.
    private func startSong(_ slot: Int, click: Int64, frame: Int64, bar: Int64) {
        guard let songPlans else { return }
        plan = slot == 0 ? songPlans.0 : songPlans.1
        songOrigin = (click, frame, bar)
        followsPlan = true
        pendingBeats = nil
        pendingSong = nil
        takePlannedPassages()
    }

    // MARK: MIDI clock (`--midi-clock`)

    /// The frame of the next clock tick, or of the Stop at the end of a finite track.
    private func nextClockFrame() -> Int64 {
        guard clockInBlock != nil, let timing = timing(ofBeat: clockBeat) else { return .max }
        // Never a tick before its passage's origin (its grid does not reach back): the song moves on.
        guard clockBeat >= timing.originClick else {
            skipClockTicks(toBeat: nextClick)
            return .max
        }
        if clockBeat >= clickLimit {
            return clockBeat == clickLimit && clockIndex == 0 && clockSongPosition != nil ? timing.frame(ofClick: clickLimit) : .max
        }
        return timing.frame(ofClockTick: clockBeat * timing.clockTicksPerBeat + clockIndex)
    }

    /// Sends the next clock tick at `frame`, and before it what the receiver
    /// needs to play along: from a count-in into bar 1, a Song Position
    /// Pointer and Start (Continue where the song position is not 0: a map's
    /// `--start-at`, a resume); at a jump in the song (a loop, the next song,
    /// skipped time, a relocated transport), Stop first; into a count-in, Stop.
    private func sendClockTick(at frame: Int64) {
        if let clock = clockInBlock, let timing = timing(ofBeat: clockBeat), frame >= position {
            if clockBeat >= clickLimit {
                stopClock(at: frame)
            } else {
                let song = timing.songClock(ofClick: clockBeat) + clockIndex
                if let last = clockSongPosition, last + 1 != song || timing.bar(ofClick: clockBeat).bar < 0 { stopClock(at: frame) }
                // A Song Position says sixteenths: a receiver stopped between them hears clocks alone up to the next.
                if timing.bar(ofClick: clockBeat).bar >= 0, clockSongPosition != nil || song % 6 == 0 {
                    if clockSongPosition == nil {
                        clock.append(.songPosition(song / 6), at: frame)
                        clock.append(song == 0 ? .start : .continue, at: frame)
                    }
                    clockSongPosition = song
                }
                clock.append(.clock, at: frame)
            }
        }
        advanceClock()
    }

    /// The clock's receiver stops at `frame` (a pause, the end, a jump; the
    /// run's stop, from the playback), if it plays.
    package func stopClock(at frame: Int64) {
        guard clockSongPosition != nil, let clock = clockInBlock else { return }
        clock.append(.stop, at: frame)
        clockSongPosition = nil
    }

    /// The clock ticks left of the beats before `beat`, each at its frame or at `frame` if later.
    private func sendClockTicks(ofBeatsBefore beat: Int64, by frame: Int64) {
        while clockInBlock != nil, clockBeat < beat, let timing = timing(ofBeat: clockBeat), clockBeat >= timing.originClick {
            sendClockTick(at: min(frame, timing.frame(ofClockTick: clockBeat * timing.clockTicksPerBeat + clockIndex)))
        }
    }

    /// Every clock tick due before `end`, where the beats were placed from outside (Link, a transport),
    /// once the first of them was.
    private func sendClockTicks(before end: Int64) {
        guard clockPlaced else { return skipClockTicks(toBeat: nextClick) }
        while true {
            let frame = nextClockFrame()
            guard frame < end else { return }
            sendClockTick(at: frame)
        }
    }

    /// A master's tempo change reaches the cycle after its bar line (the cycle
    /// holding it still says the old tempo): the clock's ticks still to come of
    /// the beat last placed follow the new tempo from that beat's frame.
    private func retimeClock(to tempo: Tempo) {
        guard clockInBlock != nil, !passage.paused, passage.tempo != tempo, nextClick > passage.firstClick else { return }
        let last = nextClick - 1
        var next = passage
        next.grid = ClickSchedule(tempo: tempo, meter: passage.meter, rate: schedule.rate)
        next.firstClick = last
        next.originClick = last
        next.originFrame = passage.frame(ofClick: last)
        next.phase = .zero
        change(to: next)
    }

    /// No ticks of the beats before `beat`: they fell in a stop, or the song jumped.
    private func skipClockTicks(toBeat beat: Int64) {
        guard clockBeat < beat else { return }
        clockBeat = beat
        clockIndex = 0
    }

    private func advanceClock() {
        clockIndex += 1
        if clockIndex >= timing(ofBeat: clockBeat)?.clockTicksPerBeat ?? 1 {
            clockIndex = 0
            clockBeat += 1
        }
    }

    private func advanceSubdivision() {
        subdivisionIndex += 1
        if subdivisionIndex == passage.rhythm.subdivision.clicksPerBeat {
            subdivisionIndex = 1
            subdivisionBeat += 1
        }
    }

    /// Applies a practice command at the first frame not yet rendered. Allocates nothing.
    package func apply(_ command: PracticeCommand) {
        switch command {
        case .tempo(let tempo, let gain):
            followsPlan = false
            pendingTempo = nil
            setGain(gain)
            change(to: passage.changingTempo(to: tempo, next: nextClick))
        case .tempoFromNextBar(let tempo, let gain):
            pendingTempo = (tempo, gain)
        case .tap(let tempo, let tapFrame, let gain):
            followsPlan = false
            pendingTempo = nil
            setGain(gain)
            change(to: passage.rephasing(to: tempo, tapFrame: tapFrame, next: nextClick, position: position))
        case .beatsPerBar(let beats):
            followsPlan = false
            pendingBeats = beats
        case .pause:
            followsPlan = false
            if !passage.paused { change(to: passage.pausing(next: nextClick, position: position)) }
            // A song asked for before the pause is the one now; it starts at the resume.
            if let slot = pendingSong { songLog?.push(SongStart(plan: slot, frame: position)) }
        case .song(let slot):
            pendingSong = slot
            // Paused: the song is the one now, and starts with a new bar at the resume.
            if passage.paused { songLog?.push(SongStart(plan: slot, frame: passage.pauseFrame)) }
        case .resume:
            if passage.paused, let slot = pendingSong {
                startSong(slot, click: nextClick, frame: position, bar: passage.bar(ofClick: nextClick - 1).bar + 1)
                if passage.paused { change(to: passage.resuming(next: nextClick, position: position)) }
                subdivisionBeat = nextClick
                subdivisionIndex = 1
                polyrhythmBar = nextClick
                polyrhythmIndex = 0
            } else if passage.paused {
                change(to: passage.resuming(next: nextClick, position: position))
                // A new bar at once: the other voices start again from its first beat.
                subdivisionBeat = nextClick
                subdivisionIndex = 1
                polyrhythmBar = nextClick
                polyrhythmIndex = 0
            }
        case .mute(let muted):
            self.muted = muted
        case .gain(let gain):
            setGain(gain)
        }
    }

    private func setGain(_ gain: Float) {
        self.gain = gain
        mixer.setGain(gain)
    }

    private func change(to passage: Passage) {
        // Keep the passage that times the beat before the change.
        if self.passage.firstClick < nextClick { previous = self.passage }
        // Playing again after a pause: the clock starts from the first beat, as the other voices do.
        if self.passage.paused, !passage.paused {
            clockBeat = passage.firstClick
            clockIndex = 0
        }
        self.passage = passage
        passageLog?.push(passage)
        endFrame = end(of: passage)
    }
}
