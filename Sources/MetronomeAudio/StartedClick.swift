import MetronomeTiming

/// A click the audio thread started, as the trace and the printed lines see it.
package struct StartedClick: Equatable, Sendable, BitwiseCopyable {
    /// Every beat counts, from 0.
    package let click: Int64
    /// The output frame where its sound starts.
    package let frame: Int64
    /// Its bar, from 0, and its beat in that bar, from 0.
    package let bar: Int64
    package let beatInBar: Int32
    package let sound: ClickSound
    /// 0 for a beat; a subdivision's index in its beat, or a second-voice click's in its bar.
    package let index: Int32
    /// The level it started at (its rhythm's level and the passage's volume, before the track's gain), 0 to 1.
    package let level: Float

    package init(click: Int64, frame: Int64, bar: Int64, beatInBar: Int32, sound: ClickSound, index: Int32 = 0, level: Float = 1) {
        self.click = click
        self.frame = frame
        self.bar = bar
        self.beatInBar = beatInBar
        self.sound = sound
        self.index = index
        self.level = level
    }

    package var bell: Bool { sound == .bell }
}
