@testable import Metronome
import Testing

/// The live view in an Ableton Link session: the keys step from their own
/// tempo while the passages made at clicks still carry the session's older one.
@Suite struct LiveViewLinkTests {
    let rate = SampleRate.standard
    let schedule = ClickSchedule(tempo: Tempo(bpm: 100)!, rate: .standard)

    func makeView() -> LiveView {
        var settings = Settings()
        settings.tempo = schedule.tempo
        let sounds = impulseSounds(rate: rate)
        let controller = PracticeController(tempo: settings.tempo, volume: 1, rate: rate,
                                            headroom: Headroom(sounds: [sounds.beat.samples, sounds.bell.samples]))
        var view = LiveView(settings: settings, schedule: schedule, firstPassage: Passage(schedule: schedule), rate: rate,
                            controller: controller, picture: false, printsLines: false, planned: true, latencyTenths: nil, tracing: false)
        view.link(peers: 1)
        return view
    }

    func tempoSent(_ reactions: [LiveView.Reaction]) -> Tempo? {
        guard case .send(.tempo(let tempo, _))? = reactions.first else { return nil }
        return tempo
    }

    /// `at` seconds after the start.
    func at(_ seconds: Double) -> MonotonicInstant { MonotonicInstant(nanoseconds: Int64(seconds * 1e9)) }

    /// A passage at `bpm` from click `click`, as the audio thread makes one at a Link click.
    func passage(bpm: Int, click: Int64) -> Passage {
        Passage(schedule: ClickSchedule(tempo: Tempo(bpm: bpm)!, rate: rate)).changingTempo(to: Tempo(bpm: bpm)!, next: click)
    }

    @Test func aPassageMadeBeforeAKeyDoesNotTakeTheKeysTempoBack() {
        var view = makeView()
        let sample = (heard: Int64(0), at: at(0), written: Int64(0))
        #expect(tempoSent(view.press([.up], at: at(1), sample: sample)) == Tempo(bpm: 101))
        // A click made before the key reached the audio thread: the session still at 100.
        _ = view.receive(passages: [passage(bpm: 100, click: 3)], at: at(1.1))
        #expect(tempoSent(view.press([.up], at: at(1.2), sample: sample)) == Tempo(bpm: 102))
        // A second after the last key, a peer's tempo is the one the keys step from.
        _ = view.receive(passages: [passage(bpm: 120, click: 6)], at: at(2.3))
        #expect(tempoSent(view.press([.up], at: at(2.4), sample: sample)) == Tempo(bpm: 121))
    }
}
