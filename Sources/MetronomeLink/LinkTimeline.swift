/// A beat timeline of a Link session: which beat falls at a time, and when a
/// beat falls, for a quantum (beats a bar). `LinkSessionState` is the real
/// one; tests also use timelines of their own with exact arithmetic.
package protocol LinkTimeline {
    /// The beat at `time` (`SessionState::beatAtTime`): its phase in `quantum` is shared by every peer.
    func beat(at time: LinkTime, quantum: Double) -> Double
    /// When `beat` falls (`SessionState::timeAtBeat`), the inverse of `beat(at:quantum:)`.
    func time(atBeat beat: Double, quantum: Double) -> LinkTime
}
