/// Where the audio thread switched to a setlist's song: its plan queue and the frame of its first bar line
/// (or, when paused, where the pause began: the song starts at the resume).
package struct SongStart: Equatable, Sendable, BitwiseCopyable {
    package let plan: Int
    package let frame: Int64

    package init(plan: Int, frame: Int64) {
        self.plan = plan
        self.frame = frame
    }
}
