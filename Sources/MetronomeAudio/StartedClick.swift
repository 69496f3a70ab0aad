import MetronomeTiming

/// A click the audio thread started, as the trace and the printed lines see it.
public struct StartedClick: Equatable, Sendable, BitwiseCopyable {
    /// Every beat counts, from 0.
    public let click: Int64
    /// The output frame where its sound starts.
    public let frame: Int64
    /// Its bar, from 0, and its beat in that bar, from 0.
    public let bar: Int64
    public let beatInBar: Int32
    public let sound: ClickSound
    /// 0 for a beat; a subdivision's index in its beat, or a second-voice click's in its bar.
    public let index: Int32

    public init(click: Int64, frame: Int64, bar: Int64, beatInBar: Int32, sound: ClickSound, index: Int32 = 0) {
        self.click = click
        self.frame = frame
        self.bar = bar
        self.beatInBar = beatInBar
        self.sound = sound
        self.index = index
    }

    public var bell: Bool { sound == .bell }
}
