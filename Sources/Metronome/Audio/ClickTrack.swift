/// The click track as a stream of frames: the passage says where clicks
/// start, the mixer plays them. Knows no clock and no device.
///
/// `render` asks which clicks start inside the block being rendered and starts
/// each at its exact offset, so any number of clicks can fall in one block and
/// a block boundary never moves a click. Live playback and file rendering run
/// this same code. Practice commands (`apply`) change the passage at the
/// first frame not yet rendered.
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
    /// Whether clicks are silent (they still count, and the pendulum still swings).
    public private(set) var muted = false

    /// The next frame `render` produces.
    public private(set) var position: Int64 = 0
    /// The next click to start.
    public private(set) var nextClick: Int64 = 0
    /// No click starts at or after this one (the end of `--bars`).
    private let clickLimit: Int64
    /// No click starts at or after this frame (the end of `--duration`).
    private let frameLimit: Int64
    /// Beats per bar asked for from the next bar on.
    private var pendingBeats: Int?
    private let beatLength: Int64
    private let bellLength: Int64

    private let mixer: Mixer
    /// Where started clicks are recorded for the trace and the display, if anywhere.
    public var clickLog: ClickLog?
    /// Where each new passage is handed on (to the picture), if anywhere.
    public var passageLog: LockFreeQueue<Passage>?
    private static let beatSlot = 0
    private static let bellSlot = 1

    public init(schedule: ClickSchedule, beat: Sound, bell: Sound, volume: Float = 1, length: TrackLength = .endless) {
        precondition(beat.rate == schedule.rate && bell.rate == schedule.rate, "sounds must be at the schedule's rate")
        self.schedule = schedule
        self.length = length
        passage = Passage(schedule: schedule)
        beatLength = Int64(beat.samples.count)
        bellLength = Int64(bell.samples.count)
        let beatsPerBar = Int64(schedule.meter.beatsPerBar)
        let playing = beatsPerBar > 1 ? [beat.samples, bell.samples] : [bell.samples]
        gain = Headroom.gain(for: playing, shortestInterval: schedule.shortestInterval, volume: volume)

        // Enough voices for every click that can still ring at the fastest tempo a key can reach, plus the one starting.
        let fastest = ClickSchedule(tempo: Tempo(clamping: .max), rate: schedule.rate).shortestInterval
        let capacity = Int(max(beatLength, bellLength) / max(fastest, 1)) + 2
        mixer = Mixer(sounds: [(beat.samples, gain), (bell.samples, gain)], voiceCapacity: capacity)

        switch length {
        case .endless:
            clickLimit = .max
            frameLimit = .max
        case .playtime(let playtime):
            clickLimit = .max
            frameLimit = playtime.frames(at: schedule.rate)
        case .bars(let bars):
            clickLimit = bars * beatsPerBar
            frameLimit = .max
        }
        endFrame = end(of: passage)
    }

    /// The end of a finite track, given the passage that plays to it.
    private func end(of passage: Passage) -> Int64? {
        switch length {
        case .endless: return nil
        case .playtime: return frameLimit
        case .bars:
            guard !passage.paused else { return nil }
            let last = clickLimit - 1
            var end = passage.frame(ofClick: clickLimit)
            end = max(end, passage.frame(ofClick: last) + (passage.isBell(click: last) ? bellLength : beatLength))
            // The last bell may still ring after the last beat.
            let lastBar = passage.bar(ofClick: last)
            let lastBell = last - lastBar.beat
            if passage.isBell(click: lastBell), lastBell >= passage.firstClick {
                end = max(end, passage.frame(ofClick: lastBell) + bellLength)
            }
            return end
        }
    }

    /// Whether every frame of a finite track has been rendered.
    public var isFinished: Bool {
        guard let endFrame else { return false }
        return position >= endFrame
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
        while nextClick < clickLimit, !passage.paused {
            if let beats = pendingBeats, passage.startsBar(nextClick) {
                pendingBeats = nil
                change(to: passage.changingMeter(beats: beats, next: nextClick))
            }
            let start = passage.frame(ofClick: nextClick)
            guard start < blockEnd else { break }
            if !muted {
                let bell = passage.isBell(click: nextClick)
                mixer.start(slot: bell ? Self.bellSlot : Self.beatSlot, at: Int(start - position), into: output, count: frames)
                let (bar, beat) = passage.bar(ofClick: nextClick)
                clickLog?.push(StartedClick(click: nextClick, frame: start, bar: bar, beatInBar: Int32(beat), bell: bell))
            }
            nextClick += 1
        }
        position += Int64(frames)
        return frames
    }

    /// Jumps to `frame` as if the frames between had played: sounds ringing
    /// move on, clicks that fell due in the gap are dropped, and the next click
    /// is the first one of the same grid at or after `frame`.
    public func skip(to frame: Int64) {
        guard frame > position else { return }
        mixer.advance(by: frame - position)
        position = frame
        guard !passage.paused else { return }
        nextClick = max(nextClick, min(passage.firstClick(atOrAfter: frame), clickLimit))
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
            if passage.paused { change(to: passage.resuming(next: nextClick, position: position)) }
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
        self.passage = passage
        passageLog?.push(passage)
        endFrame = end(of: passage)
    }
}
