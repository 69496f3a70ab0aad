import Foundation
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
import MetronomeTestSupport

/// `metronome --jack` under `pw-jack`: the same native JACK client, on
/// PipeWire's libjack, in a private PipeWire session (a null sink, started
/// here), its port connected to the sink's playback ports as to a desktop's.
/// Recorded by `Tests/Tools/pw_stamped_rec.c` on the sink's far side: a
/// native PipeWire stream, not a JACK client, that places each buffer at the
/// graph clock's position (`pw_time.ticks`, the position PipeWire's
/// `jack_last_frame_time` reads) and names the stretches of graph time it
/// missed, which a JACK recorder could not tell from silence.
@Suite(.serialized) struct PipeWireJackTests {
    static let required = ProcessInfo.processInfo.environment["METRONOME_REQUIRE_LOOPBACK"] == "1"
    static let available = PipeWireSession.jackIsInstalled || required
    static let needs = "PipeWire and pipewire-jack are needed: run scripts/setup --test"

    /// The client is PipeWire's: while it plays, the private session's graph
    /// holds a JACK node `metronome` made by the metronome's own process, and
    /// its port `out` feeds both playback ports of the session's sink (the
    /// system's playback ports, as PipeWire's JACK names them physical).
    @Test(.enabled(if: available))
    func theClientIsANodeOfThePrivateSession() throws {
        try #require(PipeWireSession.jackIsInstalled, "\(Self.needs)")
        let session = try PipeWireSession()
        let metronome = try session.startUnderJack(metronomeBinary(), ["--jack", "--duration", "4", "--no-pendulum", "--quiet"], log: "stderr")
        var nodes: [String] = [], links: [String] = []
        waitUntil(seconds: 3, every: .milliseconds(100)) {
            nodes = (try? session.jackNodes(ofProcess: metronome.processIdentifier)) ?? []
            links = (try? session.links(of: "metronome:out")) ?? []
            return nodes == ["metronome"] && links.count == 2
        }
        metronome.waitUntilExit()
        #expect(metronome.terminationStatus == 0, "\(session.log("stderr"))")
        #expect(nodes == ["metronome"])
        #expect(links.sorted() == ["\(PipeWireSession.sink):playback_FL", "\(PipeWireSession.sink):playback_FR"], "\(links)")
    }

    /// 20 s at 137 bpm in 3/4: every click on its exact frame of the graph's
    /// clock, the bell on each bar's first beat, no underrun. A take whose
    /// recorder missed a cycle, or in which the metronome met one the graph
    /// skipped (it says so), had a machine too loaded to keep PipeWire's time,
    /// which is not real-time here: it is taken again, three times at most, and the
    /// last take must be exact.
    @Test(.enabled(if: available))
    func everyClickIsOnItsExactFrameForTwentySeconds() throws {
        try #require(PipeWireSession.jackIsInstalled, "\(Self.needs)")
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), meter: try Meter(parsing: "3/4"), rate: .standard)
        for attempt in 1...4 {
            let session = try PipeWireSession()
            let directory = TemporaryDirectory()
            let (beat, bell) = try writeImpulseSoundFiles(in: directory)
            let file = session.file("recording.wav")
            let recorder = try session.startRecording(to: file)
            let played = try run(PipeWireSession.jackWrapper,
                                 [metronomeBinary(), "--jack", "--bpm", "137", "--meter", "3/4", "--duration", "20", "--no-pendulum", "--quiet",
                                  "--beat-sound", beat, "--bell-sound", bell], environment: session.environment)
            let found = onsets(try session.finish(recorder, file: file))
            if played.standardError.contains("underrun") || session.framesTheRecorderMissed(file: file) != 0, attempt < 4 { continue }
            #expect(played.status == 0, "\(played.standardError)")
            #expect(played.standardError == "", "\(played.standardError)")
            #expect(session.framesTheRecorderMissed(file: file) == 0)
            let first = try #require(found.first, "nothing recorded: \(played.standardError)")
            expectExactClicks(clicksHeard(found, from: first, on: schedule), 0..<46, on: schedule)  // 20 s at 137 bpm: clicks 0 to 45
            return
        }
    }

    /// The PipeWire server stopped (SIGSTOP) for 300 ms, 150 ms after click 4
    /// is rendered at 240 bpm. PipeWire's JACK does not stand still as jackd
    /// does: once continued, the graph runs the cycles it owes in a burst, each
    /// after its end, skipping some (its frame time jumps), and at times runs a
    /// client twice in one cycle; what a client writes in the burst may reach
    /// the sink a cycle later than its frame time. No click is late: every
    /// click heard is on its exact frame of the original grid, the graph's
    /// clock; the only clicks missing are those due in the graph time the
    /// recorder names as missed or taken after its end, and the metronome
    /// counts no more underruns than those stretches. A take the machine
    /// disturbed besides the stall (such a stretch before click 4 or more than
    /// a second after the stall, cycles the metronome's client lost and the
    /// recorder did not, or a first click that is not the bell) is taken
    /// again, seven times at most.
    @Test(.enabled(if: available))
    func aStalledServerDropsOnlyTheClicksDueInLostCyclesAndKeepsTheGrid() throws {
        try #require(PipeWireSession.jackIsInstalled, "\(Self.needs)")
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "240"), rate: .standard)
        let attempts = 8
        for attempt in 1...attempts {
            let session = try PipeWireSession()
            let (metronome, file, found) = try PipeWireTests.takeWithTheServerPaused(milliseconds: 300, ["--jack", "--quiet"], underJack: true,
                                                                                     in: session, schedule: schedule)
            let stderr = session.log("stderr")
            let gaps = session.gapsInRecording(file: file), late = session.lateInRecording(file: file)
            let lost = gaps + late
            let first = try #require(found.first, "nothing recorded: \(stderr)")
            // The stall's graph time: from click 4 to a second after it (150 + 300 ms, and the burst that catches up).
            let stall = (first.frame + schedule.frame(ofClick: 4))...(first.frame + schedule.frame(ofClick: 8))
            // Or the metronome's own client lost cycles the recorder did not miss (late on a loaded machine).
            let disturbed = lost.contains { !stall.contains($0.frame) } || session.gapsTheRecorderMissed(file: file) != gaps.count
                || Self.underruns(in: stderr) > lost.count
                // Or the graph ran the run's first cycle after its end (a loaded machine), and its bell was left out.
                || first.value >= 0
            if disturbed, attempt < attempts { continue }
            #expect(metronome.terminationStatus == 0, "\(stderr)")
            #expect(session.gapsTheRecorderMissed(file: file) == gaps.count, "more gaps than the recorder named: \(gaps)")
            let heard = clicksHeard(found, from: first, on: schedule)
            let clicks = heard.map(\.click)
            #expect(clicks == clicks.sorted() && Set(clicks).count == clicks.count, "\(heard)")
            for click in heard {
                #expect(click.offset == 0, "\(click); missed \(gaps), late \(late); \(stderr)")
                #expect(click.bell == schedule.isBell(click: click.click), "\(click)")
            }
            // A click missing was due in graph time the recorder missed or took after its end.
            for click in Set(0..<24).subtracting(clicks) {
                let due = first.frame + schedule.frame(ofClick: Int64(click))
                #expect(lost.contains { $0.frame <= due && due < $0.frame + $0.frames }, "click \(click) (frame \(due)) missing; missed \(gaps), late \(late)")
            }
            // One underrun a stretch of lost time, which the recorder missed or took late too.
            let underruns = Self.underruns(in: stderr)
            #expect(underruns <= lost.count, "\(stderr); missed \(gaps), late \(late)")
            #expect(stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("metronome: \(underruns) underrun") }, "\(stderr)")
            return
        }
    }

    /// The underruns the metronome reported at its end (`N underruns in JACK client`), 0 if none.
    static func underruns(in stderr: String) -> Int {
        guard let line = stderr.split(separator: "\n").first(where: { $0.contains(" in JACK client ") }) else { return 0 }
        return Int(line.split(separator: " ")[1]) ?? 0
    }
}
