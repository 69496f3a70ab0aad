/// Where the audio thread switched to a setlist's song: its plan queue and the frame of its first bar line
/// (or, when paused, where the pause began: the song starts at the resume).
public struct SongStart: Equatable, Sendable, BitwiseCopyable {
    public let plan: Int
    public let frame: Int64

    public init(plan: Int, frame: Int64) {
        self.plan = plan
        self.frame = frame
    }
}
