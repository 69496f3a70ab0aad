import Testing
import MetronomeTiming
@testable import MetronomeSession

/// Which new passages the trace reports as a change of tempo.
@Suite struct TempoChangesTests {
    let schedule = ClickSchedule(tempo: Tempo(bpm: 120)!, rate: .standard)

    /// The same passage anew (placed beats a frame or a millisecond off the
    /// grid, as a MIDI clock's re-anchoring makes them) is no change; more
    /// than a millisecond off, or another tempo, is one, at its first click.
    @Test func aPassageAnewWithinAMillisecondIsNoChange() {
        var changes = TempoChanges(after: Passage(schedule: schedule))
        func placed(click: Int64, off: Int64, bpm: Int = 120) -> Passage {
            var passage = Passage(schedule: schedule)
            passage.grid = ClickSchedule(tempo: Tempo(bpm: bpm)!, rate: .standard)
            passage.firstClick = click
            passage.originClick = click
            passage.originFrame = schedule.frame(ofClick: click) + off
            return passage
        }
        #expect(changes.firstFrame(ofChangeTo: placed(click: 4, off: 1)) == nil)
        #expect(changes.firstFrame(ofChangeTo: placed(click: 5, off: -47)) == nil)
        #expect(changes.firstFrame(ofChangeTo: placed(click: 6, off: 49)) == schedule.frame(ofClick: 6) + 49)
        #expect(changes.firstFrame(ofChangeTo: placed(click: 8, off: 49, bpm: 121)) == schedule.frame(ofClick: 8) + 49)
    }
}
