import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeSession
import MetronomeTestSupport

/// Tempo keys pressed faster than the audio thread plays them back: each
/// press counts, though passages of earlier presses come in between.
@Suite struct LiveViewKeysTests {
    let rate = SampleRate.standard
    let schedule = ClickSchedule(tempo: Tempo(bpm: 100)!, rate: .standard)

    func makeView() -> LiveView {
        let settings = Settings(tempo: schedule.tempo)
        let sounds = impulseSounds(rate: rate)
        let controller = PracticeController(tempo: settings.tempo, volume: 1, rate: rate,
                                            headroom: Headroom(sounds: [sounds.beat.samples, sounds.bell.samples]))
        return LiveView(settings: settings, schedule: schedule, firstPassage: Passage(schedule: schedule), rate: rate,
                        controller: controller, picture: false, printsLines: false, planned: false, latencyTenths: nil, tracing: false)
    }

    func at(_ seconds: Double) -> MonotonicInstant { MonotonicInstant(nanoseconds: Int64(seconds * 1e9)) }

    /// The passage the audio thread makes for a tempo key's command, from click `click`.
    func echo(bpm: Int, click: Int64) -> Passage { Passage(schedule: schedule).changingTempo(to: Tempo(bpm: bpm)!, next: click) }

    /// Twenty Up presses in two bursts of ten, the first burst's passages (101 to 105) coming
    /// back between them: 120, as the keys asked (they stopped at 115: each passage set the tempo
    /// the keys step from back to its own). A plan moving the tempo a second later is followed.
    @Test func everyTempoKeyCountsWhileItsPassagesComeBack() {
        var view = makeView()
        let sample = (heard: Int64(0), at: at(0), written: Int64(0))
        _ = view.press(Array(repeating: .up, count: 10), at: at(1), sample: sample)
        _ = view.receive(passages: (101...105).map { echo(bpm: $0, click: Int64($0 - 100)) }, at: at(1.05))
        let reactions = view.press(Array(repeating: .up, count: 10), at: at(1.1), sample: sample)
        guard case .send(.tempo(let last, _))? = reactions.last else {
            Issue.record("no tempo sent: \(reactions)")
            return
        }
        #expect(last == Tempo(bpm: 120))
        #expect(view.controller.tempo == Tempo(bpm: 120))
        // The rest come back; then a plan's passage at 90, after the keys' second: the keys step from 90.
        _ = view.receive(passages: (106...120).map { echo(bpm: $0, click: Int64($0 - 100)) }, at: at(1.2))
        _ = view.receive(passages: [echo(bpm: 90, click: 30)], at: at(2.5))
        #expect(view.controller.tempo == Tempo(bpm: 90))
    }

    /// Up, Down, Up, their passages coming back after all three: 101, the last asked, not the
    /// Down's 100 (the first echo of 101 once ended the wait, and the 100 after it was followed).
    @Test func anEchoOfAnEarlierKeyIsNotFollowedWhileALaterOneIsAwaited() {
        var view = makeView()
        let sample = (heard: Int64(0), at: at(0), written: Int64(0))
        _ = view.press([.up, .down, .up], at: at(1), sample: sample)
        _ = view.receive(passages: [echo(bpm: 101, click: 1)], at: at(1.05))
        _ = view.receive(passages: [echo(bpm: 100, click: 2)], at: at(1.06))
        #expect(view.controller.tempo == Tempo(bpm: 101))
        _ = view.receive(passages: [echo(bpm: 101, click: 3)], at: at(1.07))
        #expect(view.controller.tempo == Tempo(bpm: 101))
        // A key's echo that never comes (a clock leading): a second on, the passage playing is followed.
        _ = view.press([.up], at: at(3), sample: sample)
        _ = view.receive(passages: [echo(bpm: 95, click: 9)], at: at(4.5))
        #expect(view.controller.tempo == Tempo(bpm: 95))
    }
}
