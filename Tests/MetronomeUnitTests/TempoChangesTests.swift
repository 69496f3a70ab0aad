import Testing
import MetronomeTiming
@testable import MetronomeSession

/// Which new passages the trace reports as a change of tempo.
@Suite struct TempoChangesTests {
    let schedule = ClickSchedule(tempo: Tempo(bpm: 120)!, rate: .standard)

    func placed(click: Int64, off: Int64, bpm: Int = 120) -> Passage {
        var passage = Passage(schedule: schedule)
        passage.grid = ClickSchedule(tempo: Tempo(bpm: bpm)!, rate: .standard)
        passage.firstClick = click
        passage.originClick = click
        passage.originFrame = schedule.frame(ofClick: click) + off
        return passage
    }

    /// The same grid anew is no change; a grid moved by a single frame is
    /// one (a tap that moves the beat, a placed beat a frame off: the trace
    /// says where every click went), at its first click; so is another tempo.
    @Test func theSameGridIsNoChangeAndAFrameMovedIsOne() {
        var changes = TempoChanges(after: Passage(schedule: schedule))
        #expect(changes.firstFrame(ofChangeTo: placed(click: 4, off: 0)) == nil)
        #expect(changes.firstFrame(ofChangeTo: placed(click: 5, off: 1)) == schedule.frame(ofClick: 5) + 1)
        #expect(changes.firstFrame(ofChangeTo: placed(click: 6, off: 1)) == nil)
        #expect(changes.firstFrame(ofChangeTo: placed(click: 8, off: 1, bpm: 121)) == schedule.frame(ofClick: 8) + 1)
    }
}
