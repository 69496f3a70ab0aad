/// A click the Link timeline puts in a period: the frame it starts at and the beat it sounds.
package struct LinkClick: Equatable, Sendable {
    /// The first frame heard at or after the beat's Link time.
    package let frame: Int64
    /// The beat on this peer's timeline (its magnitude is ours; its phase is the session's).
    package let beat: Int64
    /// The beat starts a bar of the quantum: the session's downbeat, the bell.
    package let isDownbeat: Bool

    package init(frame: Int64, beat: Int64, isDownbeat: Bool) {
        self.frame = frame
        self.beat = beat
        self.isDownbeat = isDownbeat
    }
}
