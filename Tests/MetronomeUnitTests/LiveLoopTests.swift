import Foundation
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeSession
import MetronomeTestSupport

/// A screen that keeps what it is given, each grid's size with the instant it was drawn at.
private final class RecordingScreen: LiveScreen {
    let clock: ManualClock
    let showsPicture: Bool
    let showsNothing = false
    var terminalSize = (width: 80, height: 24)
    private(set) var drawn: [(at: MonotonicInstant, width: Int, height: Int)] = []
    private(set) var invalidated: [MonotonicInstant] = []
    private(set) var printed = ""
    private(set) var suspended = 0
    private(set) var left = 0

    init(clock: ManualClock, picture: Bool) {
        self.clock = clock
        showsPicture = picture
    }

    func size() -> (width: Int, height: Int) { terminalSize }
    func draw(_ grid: TextGrid) { drawn.append((clock.now(), grid.width, grid.height)) }
    func invalidate() { invalidated.append(clock.now()) }
    func emit(_ text: String) { printed += text }
    func suspend() -> Bool {
        suspended += 1
        return true
    }
    func leave() { left += 1 }
}

/// The signals, keys and resizes of a script, each at its instant on the manual clock. A wait
/// moves the clock to the next one, or by the time waited. Once the script is played, a wait
/// also sleeps a millisecond of real time: the audio thread keeps the system's time, and a
/// stopped one ends in it.
private final class ScriptedInput: LiveInput {
    struct Event {
        var at: MonotonicInstant
        var signal: Int32?
        var keys = ""
        /// The terminal's size from then on.
        var size: (width: Int, height: Int)?
    }

    let clock: ManualClock
    let screen: RecordingScreen
    private var script: [Event]
    private var typed: [UInt8] = []
    private var idleWaits = 0

    init(clock: ManualClock, screen: RecordingScreen, script: [Event]) {
        self.clock = clock
        self.screen = screen
        self.script = script
    }

    func wait(milliseconds: Int) -> (signal: Int32?, keyReady: Bool) {
        let end = clock.now().nanoseconds + Int64(milliseconds) * 1_000_000
        if let next = script.first, next.at.nanoseconds <= end {
            script.removeFirst()
            clock.sleep(until: next.at)
            if let size = next.size { screen.terminalSize = size }
            typed = Array(next.keys.utf8)
            return (next.signal, !typed.isEmpty)
        }
        clock.sleep(until: MonotonicInstant(nanoseconds: end))
        if script.isEmpty {
            idleWaits += 1
            usleep(1_000)
            // A loop that never ends fails its test rather than hanging it.
            if idleWaits == 10_000 { return (SIGKILL, false) }
        }
        return (nil, false)
    }

    func readKeys() -> [UInt8] {
        defer { typed = [] }
        return typed
    }
}

/// The live loop itself on a manual clock, with a screen that records and input that plays a
/// script; the audio thread plays silently on the system's clock (`SilentSink`).
@Suite struct LiveLoopTests {
    let rate = SampleRate.standard

    struct Run {
        let outcome: RunOutcome
        fileprivate let screen: RecordingScreen
        let playback: LivePlayback
        let start: MonotonicInstant

        func after(seconds: Double) -> MonotonicInstant { MonotonicInstant(nanoseconds: start.nanoseconds + Int64(seconds * 1e9)) }
    }

    /// Runs a loop at `bpm` until playback ends, the events at their seconds from the start.
    fileprivate func run(bpm: Int = 120, length: TrackLength = .endless, picture: Bool = true, trace: Trace? = nil,
             script: [(seconds: Double, event: ScriptedInput.Event)] = []) -> Run {
        let settings = Settings(tempo: Tempo(bpm: bpm)!)
        let sounds = impulseSounds(rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: settings.tempo, rate: rate), beat: sounds.beat, bell: sounds.bell,
                               length: length)
        let clickLog = ClickLog(capacity: 1 << 12)
        let passageLog = LockFreeQueue<Passage>(capacity: 256)
        track.clickLog = clickLog
        track.passageLog = passageLog
        let playback = LivePlayback(track: track, sink: SilentSink(rate: rate))
        let controller = PracticeController(tempo: settings.tempo, volume: 1, rate: rate,
                                            headroom: Headroom(sounds: [sounds.beat.samples, sounds.bell.samples]))
        // The manual clock from where the system's is, which the audio thread stamps its positions by.
        let clock = ManualClock()
        clock.sleep(until: MonotonicClock().now())
        let start = clock.now()
        let screen = RecordingScreen(clock: clock, picture: picture)
        let events = script.map { item in
            var event = item.event
            event.at = MonotonicInstant(nanoseconds: start.nanoseconds + Int64(item.seconds * 1e9))
            return event
        }
        let input = ScriptedInput(clock: clock, screen: screen, script: events)
        let loop = LiveLoop(settings: settings, playback: playback, screen: screen, input: input, clock: clock, trace: trace,
                            clickLog: clickLog, passageLog: passageLog, controller: controller)
        return Run(outcome: loop.run(), screen: screen, playback: playback, start: start)
    }

    fileprivate static func signal(_ signal: Int32, size: (width: Int, height: Int)? = nil) -> ScriptedInput.Event {
        ScriptedInput.Event(at: MonotonicInstant(nanoseconds: 0), signal: signal, size: size)
    }

    @Test func aSignalStopsPlaybackAndTheStatusSaysWhich() {
        let run = run(script: [(0.5, Self.signal(SIGTERM))])
        #expect(run.outcome == .stoppedBy(signal: SIGTERM))
        #expect(run.playback.isFinished)
        #expect(run.screen.left == 1)
        // The picture drawn, at the terminal's size.
        #expect(!run.screen.drawn.isEmpty)
        #expect(run.screen.drawn.allSatisfy { $0.width == 80 && $0.height == 24 })
    }

    /// A resize, and a stop (Ctrl-Z) the terminal comes back from at another size: the next
    /// frame, within a frame's time, is drawn whole at the new size.
    @Test func aResizeOrAStopAndContinueRedrawsThePictureWholeAtTheNextFrame() throws {
        let run = run(script: [(0.3, Self.signal(SIGWINCH, size: (100, 30))), (0.6, Self.signal(SIGTSTP, size: (90, 20))),
                               (0.9, Self.signal(SIGINT))])
        #expect(run.outcome == .stoppedBy(signal: SIGINT))
        #expect(run.screen.invalidated == [run.after(seconds: 0.3)])
        #expect(run.screen.suspended == 1)
        let period = Int64(1e9 / 60) + 1
        for (seconds, width, height) in [(0.3, 100, 30), (0.6, 90, 20)] {
            let next = try #require(run.screen.drawn.first { $0.at >= run.after(seconds: seconds) })
            #expect(next.width == width && next.height == height, "after \(seconds) s")
            #expect(next.at.nanoseconds - run.after(seconds: seconds).nanoseconds <= period, "after \(seconds) s")
        }
        #expect(run.screen.drawn.last.map { $0.width == 90 && $0.height == 20 } == true)
    }

    @Test func qStopsPlaybackAndTheRunEndsWell() {
        let run = run(script: [(0.2, ScriptedInput.Event(at: MonotonicInstant(nanoseconds: 0), keys: "q"))])
        #expect(run.outcome == .finished)
        #expect(run.playback.isFinished)
    }

    /// Tracing, every picture made is drawn and has its frame line, after the first tempo.
    @Test func theTraceHasALineForEveryFrameDrawn() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("trace.jsonl")
        let run = run(trace: try Trace(path: path, force: false), script: [(0.5, Self.signal(SIGTERM))])
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == #"{"type":"tempo","bpm":"120","frame":0}"#)
        #expect(lines.filter { $0.hasPrefix(#"{"type":"frame","#) }.count == run.screen.drawn.count)
        #expect(run.screen.drawn.count >= 29)
    }

    /// Without a picture: a line a bar, and the run ends with the track.
    @Test func withoutAPictureTheBarsArePrintedAndTheRunEndsWithTheTrack() {
        let run = run(bpm: 600, length: .bars(2), picture: false)
        #expect(run.outcome == .finished)
        #expect(run.screen.drawn.isEmpty)
        #expect(run.screen.printed == "bar 1  600 bpm 4/4  0.0s\nbar 2  600 bpm 4/4  0.4s\n")
    }
}
