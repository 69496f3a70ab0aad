import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeSession
import MetronomeTestSupport

/// The live view in an Ableton Link session: the keys step from their own
/// tempo while the passages made at clicks still carry the session's older one.
@Suite struct LiveViewLinkTests {
    let rate = SampleRate.standard
    let schedule = ClickSchedule(tempo: Tempo(bpm: 100)!, rate: .standard)

    func makeView(picture: Bool = false, startStopSync: Bool = false) -> LiveView {
        let settings = Settings(tempo: schedule.tempo, destination: .live(Settings.Live(link: LinkSettings(startStopSync: startStopSync))))
        let sounds = impulseSounds(rate: rate)
        let controller = PracticeController(tempo: settings.tempo, volume: 1, rate: rate,
                                            headroom: Headroom(sounds: [sounds.beat.samples, sounds.bell.samples]))
        var view = LiveView(settings: settings, schedule: schedule, firstPassage: Passage(schedule: schedule), rate: rate,
                            controller: controller, picture: picture, printsLines: false, planned: true, latencyTenths: nil, tracing: false)
        if picture { view.resize(width: 100, height: 24, at: at(0)) }
        view.link(peers: 1)
        return view
    }

    /// The status line of the frame at `seconds`, nothing heard yet.
    func statusLine(_ view: inout LiveView, at seconds: Double) -> String {
        _ = view.frame(at: at(seconds), sample: (heard: 0, at: at(0), written: 0), underruns: 0)
        return view.grid.line(23)
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

    /// With start and stop shared, PAUSED says the session is stopped, whoever stopped it: the
    /// peer that pressed Space to start it showed PAUSED while it played, and a stopped session nothing.
    @Test func withStartAndStopSharedPausedShowsTheSessionStopped() {
        var view = makeView(picture: true, startStopSync: true)
        view.link(peers: 1, transportPlays: false)
        #expect(statusLine(&view, at: 0.1).contains("PAUSED"))
        let sample = (heard: Int64(0), at: at(0), written: Int64(0))
        #expect(view.press([.character(UInt8(ascii: " "))], at: at(0.2), sample: sample) == [.send(.pause)])
        view.link(peers: 1, transportPlays: true)
        #expect(!statusLine(&view, at: 0.3).contains("PAUSED"))
        // A peer stops it: PAUSED, though this metronome's last Space asked it to play.
        view.link(peers: 1, transportPlays: false)
        #expect(statusLine(&view, at: 0.4).contains("PAUSED"))
    }

    /// Not shared, PAUSED is this metronome's own pause, whatever the session does.
    @Test func withoutStartAndStopSharedPausedIsTheKeys() {
        var view = makeView(picture: true)
        #expect(!statusLine(&view, at: 0.1).contains("PAUSED"))
        let sample = (heard: Int64(0), at: at(0), written: Int64(0))
        _ = view.press([.character(UInt8(ascii: " "))], at: at(0.2), sample: sample)
        #expect(statusLine(&view, at: 0.3).contains("PAUSED"))
    }

    /// While nothing plays (a stopped session joined), the resting passage carries the session's
    /// tempo: the status line shows it, not `--bpm`, and the keys step from it.
    @Test func aRestingPassageShowsAndLeadsWithTheSessionsTempo() {
        var view = makeView(picture: true, startStopSync: true)
        let resting = Passage(schedule: schedule).pausing(next: 0, position: 0).changingTempo(to: Tempo(bpm: 110)!, next: 0)
        _ = view.receive(passages: [resting], at: at(0.1))
        #expect(statusLine(&view, at: 1.2).contains("110 bpm"))
        let sample = (heard: Int64(0), at: at(0), written: Int64(0))
        #expect(tempoSent(view.press([.up], at: at(1.3), sample: sample)) == Tempo(bpm: 111))
    }
}
