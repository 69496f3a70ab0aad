/// The click track as a stream of frames: the schedule says where clicks
/// start, the mixer plays them. Knows no clock and no device.
///
/// `render` asks which clicks start inside the block being rendered and starts
/// each at its exact offset, so any number of clicks can fall in one block and
/// a block boundary never moves a click. Live playback and file rendering run
/// this same code.
public final class ClickTrack: @unchecked Sendable {
    public let schedule: ClickSchedule
    public let length: TrackLength
    /// The frame after the last one of the track; nil while it is endless.
    public let endFrame: Int64?
    /// The gain applied to every sound: the volume, reduced if overlapping clicks would clip.
    public let gain: Float

    /// The next frame `render` produces.
    public private(set) var position: Int64 = 0
    /// The next click to start.
    public private(set) var nextClick: Int64 = 0
    /// No click starts at or after this one (the end of `--bars`).
    private let clickLimit: Int64
    /// No click starts at or after this frame (the end of `--duration`).
    private let frameLimit: Int64

    private let mixer: Mixer
    /// Where started clicks are recorded for the trace and the display, if anywhere.
    public var clickLog: ClickLog?
    private static let beatSlot = 0
    private static let bellSlot = 1

    public init(schedule: ClickSchedule, beat: Sound, bell: Sound, volume: Float = 1, length: TrackLength = .endless) {
        precondition(beat.rate == schedule.rate && bell.rate == schedule.rate, "sounds must be at the schedule's rate")
        self.schedule = schedule
        self.length = length
        let beatsPerBar = Int64(schedule.meter.beatsPerBar)
        let interval = schedule.shortestInterval
        let playing = beatsPerBar > 1 ? [beat.samples, bell.samples] : [bell.samples]
        gain = Headroom.gain(for: playing, shortestInterval: interval, volume: volume)

        // Enough voices for every click that can still ring, plus the one starting.
        let longest = Int64(max(beat.samples.count, bell.samples.count))
        let capacity = Int(longest / max(interval, 1)) + 2
        mixer = Mixer(sounds: [(beat.samples, gain), (bell.samples, gain)], voiceCapacity: capacity)

        switch length {
        case .endless:
            clickLimit = .max
            frameLimit = .max
            endFrame = nil
        case .playtime(let playtime):
            clickLimit = .max
            frameLimit = playtime.frames(at: schedule.rate)
            endFrame = frameLimit
        case .bars(let bars):
            let clicks = bars * beatsPerBar
            clickLimit = clicks
            frameLimit = .max
            var end = schedule.frame(ofClick: clicks)
            let lastBell = clicks - beatsPerBar
            end = max(end, schedule.frame(ofClick: lastBell) + Int64(bell.samples.count))
            if beatsPerBar > 1 {
                end = max(end, schedule.frame(ofClick: clicks - 1) + Int64(beat.samples.count))
            }
            endFrame = end
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
        while nextClick < clickLimit {
            let start = schedule.frame(ofClick: nextClick)
            guard start < blockEnd else { break }
            let slot = schedule.isBell(click: nextClick) ? Self.bellSlot : Self.beatSlot
            mixer.start(slot: slot, at: Int(start - position), into: output, count: frames)
            clickLog?.push(click: nextClick, frame: start)
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
        nextClick = max(nextClick, min(schedule.firstClick(atOrAfter: frame), clickLimit))
    }
}
