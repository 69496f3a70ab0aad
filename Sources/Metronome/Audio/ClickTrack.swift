/// The click track as a stream of frames: the passage says where clicks
/// start, the mixer plays them. Knows no clock and no device.
///
/// `render` asks which clicks start inside the block being rendered and starts
/// each at its exact offset, so any number of clicks can fall in one block and
/// a block boundary never moves a click. Three voices are merged in time
/// order: the beats, the subdivisions between them, and the second voice of a
/// polyrhythm; each click is timed by the passage of the beat it falls in.
/// Live playback and file rendering run this same code. Practice commands
/// (`apply`) change the passage at the first frame not yet rendered.
public final class ClickTrack: @unchecked Sendable {
    /// The schedule the track starts with.
    public let schedule: ClickSchedule
    public let length: TrackLength
    /// The frame after the last one of the track; nil while it is endless.
    public private(set) var endFrame: Int64?
    /// The gain applied to every sound: the volume, reduced if overlapping clicks would clip.
    public private(set) var gain: Float
    /// Where clicks fall now; changed only by `apply` and at a pending meter change.
    public private(set) var passage: Passage
    /// The passage that times beat `nextClick - 1`, whose subdivisions and
    /// second-voice clicks may still be due after a change at `nextClick`.
    private var previous: Passage
    /// Whether clicks are silent (they still count, and the pendulum still swings).
    public private(set) var muted = false

    /// The next frame `render` produces.
    public private(set) var position: Int64 = 0
    /// The next beat to start.
    public private(set) var nextClick: Int64 = 0
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
    private let soundLengths: (beat: Int64, bell: Int64, subdivision: Int64, polyrhythm: Int64)

    private let mixer: Mixer
    /// Where started clicks are recorded for the trace and the display, if anywhere.
    public var clickLog: ClickLog?
    /// Where each new passage is handed on (to the picture), if anywhere.
    public var passageLog: LockFreeQueue<Passage>?

    /// A track of `sounds` (the beat and the bell stand in for a subdivision or second voice not given).
    public convenience init(schedule: ClickSchedule, sounds: ClickSounds, volume: Float = 1, length: TrackLength = .endless,
                            rhythm: Rhythm = .plain) {
        self.init(schedule: schedule, beat: sounds.beat, bell: sounds.bell, volume: volume, length: length,
                  rhythm: rhythm, subdivision: sounds.subdivision, polyrhythm: sounds.polyrhythm)
    }

    /// The beat and bell, and for a rhythm that uses them the subdivision and second-voice sounds
    /// (the beat and the bell stand in for them when not given).
    public init(schedule: ClickSchedule, beat: Sound, bell: Sound, volume: Float = 1, length: TrackLength = .endless,
                rhythm: Rhythm = .plain, subdivision: Sound? = nil, polyrhythm: Sound? = nil) {
        let subdivision = subdivision ?? beat, polyrhythm = polyrhythm ?? bell
        for sound in [beat, bell, subdivision, polyrhythm] {
            precondition(sound.rate == schedule.rate, "sounds must be at the schedule's rate")
        }
        self.schedule = schedule
        self.length = length
        passage = Passage(schedule: schedule, rhythm: rhythm)
        previous = passage
        soundLengths = (Int64(beat.samples.count), Int64(bell.samples.count),
                        Int64(subdivision.samples.count), Int64(polyrhythm.samples.count))
        let sounds = ClickSounds(beat: beat, bell: bell, subdivision: subdivision, polyrhythm: polyrhythm)
        gain = sounds.headroom(rhythm: rhythm, meter: schedule.meter).gain(for: schedule, volume: volume)

        // Enough voices for every click that can still ring at the fastest tempo a key can reach, plus the one starting.
        let fastest = ClickSchedule(tempo: Tempo(clamping: .max), rate: schedule.rate).shortestInterval
        let clicksPerBeat = Int64(rhythm.subdivision.clicksPerBeat) + Int64(rhythm.polyrhythm?.clicks ?? 0)
        let longest = max(soundLengths.beat, soundLengths.bell, soundLengths.subdivision, soundLengths.polyrhythm)
        let capacity = Int((longest / max(fastest, 1) + 2) * clicksPerBeat)
        mixer = Mixer(sounds: [(beat.samples, gain), (bell.samples, gain), (subdivision.samples, gain), (polyrhythm.samples, gain)],
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
        }
        endFrame = end(of: passage)
    }

    private enum Slot {
        static let beat = 0, bell = 1, subdivision = 2, polyrhythm = 3
    }

    /// The end of a finite track, given the passage that plays to it: the
    /// frame after the last bar, or later while the last bar's sounds still ring.
    private func end(of passage: Passage) -> Int64? {
        switch length {
        case .endless: return nil
        case .playtime: return frameLimit
        case .bars:
            guard !passage.paused else { return nil }
            var end = passage.frame(ofClick: clickLimit)
            func ring(_ start: Int64, _ length: Int64) { end = max(end, start + length) }
            let last = clickLimit - 1
            let barStart = last - passage.bar(ofClick: last).beat
            for click in max(barStart, passage.firstClick)...last {
                guard let sound = passage.sound(ofClick: click) else { continue }
                ring(passage.frame(ofClick: click), sound == .beat ? soundLengths.beat : soundLengths.bell)
            }
            let subdivision = passage.rhythm.subdivision
            if subdivision.clicksPerBeat > 1 {
                let tick = last * subdivision.ticksPerBeat + subdivision.tick(ofClick: subdivision.clicksPerBeat - 1)
                ring(passage.frame(ofTick: tick, ticksPerBeat: subdivision.ticksPerBeat), soundLengths.subdivision)
            }
            if let polyrhythm = passage.rhythm.polyrhythm, barStart >= passage.firstClick {
                let index = polyrhythm.clicksPerBar(beatsPerBar: passage.meter.beatsPerBar) - 1
                let tick = barStart * Int64(polyrhythm.clicks) + polyrhythm.tick(ofClick: index)
                ring(passage.frame(ofTick: tick, ticksPerBeat: Int64(polyrhythm.clicks)), soundLengths.polyrhythm)
            }
            return end
        }
    }

    /// Whether every frame of a finite track has been rendered.
    public var isFinished: Bool {
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
    public func render(into output: UnsafeMutablePointer<Float>, count: Int) -> Int {
        output.update(repeating: 0, count: count)
        let frames = endFrame.map { Int(max(0, min(Int64(count), $0 - position))) } ?? count
        guard frames > 0 else { return 0 }
        mixer.mix(into: output, count: frames)
        let blockEnd = min(position + Int64(frames), frameLimit)
        // No click of a paused passage's earlier beats after the pause.
        let stop = passage.paused ? min(blockEnd, passage.pauseFrame) : blockEnd
        while true {
            if nextClick < clickLimit, let beats = pendingBeats, !passage.paused, passage.startsBar(nextClick) {
                pendingBeats = nil
                change(to: passage.changingMeter(beats: beats, next: nextClick))
            }
            let beat = nextBeatFrame()
            let subdivision = nextSubdivisionFrame()
            let polyrhythm = nextPolyrhythmFrame()
            // In time order; at the same frame the beat first, for it may start a new passage.
            if beat < stop, beat <= subdivision, beat <= polyrhythm {
                startBeat(at: beat, into: output, count: frames)
            } else if subdivision < stop, subdivision <= polyrhythm {
                startSubdivision(at: subdivision, into: output, count: frames)
            } else if polyrhythm < stop {
                startPolyrhythm(at: polyrhythm, into: output, count: frames)
            } else {
                break
            }
        }
        position += Int64(frames)
        return frames
    }

    private func nextBeatFrame() -> Int64 {
        guard nextClick < clickLimit, !passage.paused else { return .max }
        return passage.frame(ofClick: nextClick)
    }

    private func nextSubdivisionFrame() -> Int64 {
        let subdivision = passage.rhythm.subdivision
        guard subdivision.clicksPerBeat > 1, subdivisionBeat < clickLimit, let timing = timing(ofBeat: subdivisionBeat) else { return .max }
        let tick = subdivisionBeat * subdivision.ticksPerBeat + subdivision.tick(ofClick: subdivisionIndex)
        return timing.frame(ofTick: tick, ticksPerBeat: subdivision.ticksPerBeat)
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
        return timing.frame(ofTick: tick, ticksPerBeat: Int64(polyrhythm.clicks))
    }

    private func startBeat(at frame: Int64, into output: UnsafeMutablePointer<Float>, count: Int) {
        let (bar, beat) = passage.bar(ofClick: nextClick)
        if !muted, !passage.isMuted(click: nextClick, bar: bar), let sound = passage.sound(ofClick: nextClick) {
            start(sound, slot: sound == .beat ? Slot.beat : Slot.bell, click: nextClick, index: 0,
                  bar: bar, beatInBar: beat, at: frame, into: output, count: count)
        }
        nextClick += 1
    }

    private func startSubdivision(at frame: Int64, into output: UnsafeMutablePointer<Float>, count: Int) {
        if let timing = timing(ofBeat: subdivisionBeat) {
            let (bar, beat) = timing.bar(ofClick: subdivisionBeat)
            if !muted, !timing.isMuted(click: subdivisionBeat, bar: bar) {
                start(.subdivision, slot: Slot.subdivision, click: subdivisionBeat, index: subdivisionIndex,
                      bar: bar, beatInBar: beat, at: frame, into: output, count: count)
            }
        }
        advanceSubdivision()
    }

    private func startPolyrhythm(at frame: Int64, into output: UnsafeMutablePointer<Float>, count: Int) {
        if let timing = timing(ofBeat: polyrhythmBar) {
            let (bar, _) = timing.bar(ofClick: polyrhythmBar)
            if !muted, !timing.rhythm.muting.mutes(bar: bar) {
                start(.polyrhythm, slot: Slot.polyrhythm, click: polyrhythmBar, index: Int(polyrhythmIndex),
                      bar: bar, beatInBar: 0, at: frame, into: output, count: count)
            }
        }
        polyrhythmIndex += 1
    }

    @inline(__always)
    private func start(_ sound: ClickSound, slot: Int, click: Int64, index: Int, bar: Int64, beatInBar: Int64,
                       at frame: Int64, into output: UnsafeMutablePointer<Float>, count: Int) {
        guard frame >= position else { return }  // due in a stretch that was skipped
        mixer.start(slot: slot, level: passage.rhythm.level(of: sound, bar: bar), at: Int(frame - position), into: output, count: count)
        clickLog?.push(StartedClick(click: click, frame: frame, bar: bar, beatInBar: Int32(beatInBar),
                                    sound: sound, index: Int32(index)))
    }

    /// Jumps to `frame` as if the frames between had played: sounds ringing
    /// move on, clicks that fell due in the gap are dropped, and the next click
    /// of each voice is the first one of the same grid at or after `frame`.
    public func skip(to frame: Int64) {
        guard frame > position else { return }
        mixer.advance(by: frame - position)
        position = frame
        guard !passage.paused else { return }
        nextClick = max(nextClick, min(passage.firstClick(atOrAfter: frame), clickLimit))
        // The other voices pass over what fell due in the gap, the same way.
        while nextSubdivisionFrame() < frame { advanceSubdivision() }
        while nextPolyrhythmFrame() < frame { polyrhythmIndex += 1 }
    }

    private func advanceSubdivision() {
        subdivisionIndex += 1
        if subdivisionIndex == passage.rhythm.subdivision.clicksPerBeat {
            subdivisionIndex = 1
            subdivisionBeat += 1
        }
    }

    /// Applies a practice command at the first frame not yet rendered. Allocates nothing.
    public func apply(_ command: PracticeCommand) {
        switch command {
        case .tempo(let tempo, let gain):
            setGain(gain)
            change(to: passage.changingTempo(to: tempo, next: nextClick))
        case .tap(let tempo, let tapFrame, let gain):
            setGain(gain)
            change(to: passage.rephasing(to: tempo, tapFrame: tapFrame, next: nextClick, position: position))
        case .beatsPerBar(let beats):
            pendingBeats = beats
        case .pause:
            if !passage.paused { change(to: passage.pausing(next: nextClick, position: position)) }
        case .resume:
            if passage.paused {
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
        self.passage = passage
        passageLog?.push(passage)
        endFrame = end(of: passage)
    }
}
