import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeTestSupport

/// `--transport follow` and `--transport master` on a real JACK server, with
/// another real client on the other side (`TransportProbe`): a timebase master
/// publishing an exact grid of fractions, a recorder noting the transport
/// frame under each click, a reader of the position every cycle.
@Suite struct JackTransportTests {
    static var ready: Bool { JackLoopback.isInstalled && TransportProbe.isInstalled }
    static let required = ProcessInfo.processInfo.environment["METRONOME_REQUIRE_LOOPBACK"] == "1"
    static let needs = "jackd2 and python3-jack-client are needed: run scripts/setup --test"

    /// A master's grid, as it announced it: from `frame` on, beat `beat` there (a bar line),
    /// `bpm` beats a minute and `beatsPerBar`.
    struct Stretch {
        let frame: Fraction, beat: Fraction, bpm: Fraction, beatsPerBar: Int64
    }

    /// A fraction the probe printed (`7/3` or `12`), as numerator and denominator.
    struct Fraction {
        let numerator: Int64, denominator: Int64
        init(_ text: Substring) {
            let parts = text.split(separator: "/")
            numerator = Int64(parts[0])!
            denominator = parts.count > 1 ? Int64(parts[1])! : 1
        }
    }

    static func stretches(_ lines: [String]) -> [Stretch] {
        lines.filter { $0.hasPrefix("grid ") }.map {
            let words = $0.split(separator: " ")
            return Stretch(frame: Fraction(words[1]), beat: Fraction(words[2]), bpm: Fraction(words[3]), beatsPerBar: Int64(words[4])!)
        }
    }

    /// The beat nearest transport frame `frame` on the master's grid, and the
    /// frame where it falls (the nearest, a half rounding up), in exact integers.
    static func nearestBeat(at frame: Int64, on stretches: [Stretch], rate: Int64) -> (beat: Int64, frame: Int64, bell: Bool) {
        // The stretch in force: the last that starts at or before the frame (frames as fractions f.n / f.d).
        let stretch = stretches.last { $0.frame.numerator <= frame * $0.frame.denominator } ?? stretches[0]
        let (f, b, t) = (stretch.frame, stretch.beat, stretch.bpm)
        // beat(x) = b + (x − f)·t / 60R, over the common denominator f.d·b.d·t.d·60R.
        let denominator = f.denominator * b.denominator * t.denominator * 60 * rate
        let numerator = b.numerator * f.denominator * t.denominator * 60 * rate
            + (frame * f.denominator - f.numerator) * b.denominator * t.numerator
        let beat = (2 * numerator + denominator) / (2 * denominator)  // nearest; the beats here are positive
        // frame(k) = f + (k − b)·60R / t, rounded half up.
        let frameNumerator = f.numerator * b.denominator * t.numerator + (beat * b.denominator - b.numerator) * f.denominator * t.denominator * 60 * rate
        let frameDenominator = f.denominator * b.denominator * t.numerator
        let placed = (2 * frameNumerator + frameDenominator) / (2 * frameDenominator)
        return (beat, placed, (beat - b.numerator / b.denominator) % stretch.beatsPerBar == 0)
    }

    /// Starts the metronome with `arguments`, its clicks single samples (a bell negative), and waits for its port.
    func metronome(_ loopback: JackLoopback, _ arguments: [String]) throws -> Process {
        let (beat, bell) = try writeImpulseSoundFiles(in: loopback.home)
        let process = try loopback.launch(metronomeBinary(), ["--jack", "--no-connect", "--no-pendulum", "--beat-sound", beat, "--bell-sound", bell]
                                            + arguments, log: loopback.home.file("metronome.log"))
        try loopback.waitForPort("metronome:out")
        return process
    }

    /// A master that isn't ours leads (the probe, its ticks rounded as Ardour
    /// publishes them, or floored as JACK's example does): every click on the
    /// frame where its beat falls, the bell on its bar's first beat, silence
    /// while stopped, through a start, a stop, a relocation while stopped, a
    /// tempo change and a meter change at bar lines, and a relocation while rolling.
    @Test(.enabled(if: ready || required), arguments: ["round", "floor"])
    func followingEveryClickIsOnTheMastersBeat(ticks: String) throws {
        try #require(Self.ready, "\(Self.needs)")
        let loopback = try JackLoopback()
        let master = try TransportProbe(on: loopback, ["master", "150", "4", ticks], name: "master")
        try master.wait(forLine: "master")
        let metronome = try metronome(loopback, ["--transport", "follow", "--duration", "60"])
        let file = loopback.home.file("clicks.jsonl")
        let recorder = try TransportProbe(on: loopback, ["record", "metronome:out", "60", file], name: "recorder")
        try recorder.wait(forLine: "recording")

        try master.command("play")
        try recorder.wait(forClicks: 6)
        try master.command("stop")
        try master.command("locate 123457")
        try master.command("play")
        try recorder.wait(forClicks: recorder.clicks + 6)
        try master.command("tempo 97")
        try recorder.wait(forClicks: recorder.clicks + 10)
        try master.command("meter 7")
        try recorder.wait(forClicks: recorder.clicks + 16)
        try master.command("locate 500000")
        try recorder.wait(forClicks: recorder.clicks + 6)
        try master.command("stop")
        master.finish()
        recorder.finish()
        metronome.interrupt()
        metronome.waitUntilExit()

        let stretches = Self.stretches(master.lines)
        #expect(stretches.count == 3, "\(master.log)")  // 150 bpm in 4/4, then 97 from a bar line, then 7 beats a bar
        let clicks = try TransportProbe.rows(file)
        #expect(clicks.count >= 44)
        var previous: (frameTime: Int64, transportFrame: Int64, beat: Int64)?
        for click in clicks {
            // Nothing while the transport stands.
            let rolling = click["rolling"] as? Bool ?? false
            #expect(rolling, "a click while stopped: \(click)")
            guard rolling, let frame = (click["transportFrame"] as? NSNumber)?.int64Value,
                  let frameTime = (click["frameTime"] as? NSNumber)?.int64Value else { continue }
            let (beat, expected, bell) = Self.nearestBeat(at: frame, on: stretches, rate: 48_000)
            #expect(frame == expected, "click at transport frame \(frame): the master's beat \(beat) falls at \(expected)")
            #expect((click["bell"] as? Bool) == bell, "click on beat \(beat): \(click)")
            // Within one rolling stretch (the transport moving with JACK's clock), no beat left out.
            if let previous, frame - previous.transportFrame == frameTime - previous.frameTime {
                #expect(beat == previous.beat + 1, "beats \(previous.beat) then \(beat)")
            }
            previous = (frameTime, frame, beat)
        }
    }

    /// jackd2's own `jack_transport` as the master: its BBT counts whole ticks a
    /// cycle (81 for 81.92 at 120 bpm), so its beats drift from its frames
    /// and the follower anchors anew each time they part by a millisecond:
    /// every click within 2 ms of where a beat of its begins (its tick
    /// wrapping, read every cycle by another client), the bell on its beat 1,
    /// nothing while stopped, through a start, a stop, a locate and a start.
    @Test(.enabled(if: ready || required))
    func followingJackTransportEveryClickIsNearItsBeat() throws {
        try #require(Self.ready, "\(Self.needs)")
        let loopback = try JackLoopback()
        let master = try TransportProbe(on: loopback, [], name: "jack_transport", executable: "/usr/bin/jack_transport")
        master.send("master")
        let claim = { try run("/usr/bin/python3", [TransportProbe.script, "claim"], environment: loopback.environment).standardOutput }
        #expect(try waitUntil(seconds: 5, every: .milliseconds(20)) { try claim() == "busy\n" }, "jack_transport never became master")
        let metronome = try metronome(loopback, ["--transport", "follow", "--duration", "60"])
        let clicksFile = loopback.home.file("clicks.jsonl"), positionsFile = loopback.home.file("positions.jsonl")
        let recorder = try TransportProbe(on: loopback, ["record", "metronome:out", "60", clicksFile], name: "recorder")
        try recorder.wait(forLine: "recording")
        let reader = try TransportProbe(on: loopback, ["read", "25", positionsFile], name: "reader")
        try reader.wait(forLine: "reading")
        let state = { try run("/usr/bin/python3", [TransportProbe.script, "state"], environment: loopback.environment).standardOutput }
        master.send("play")
        try recorder.wait(forClicks: 8)
        master.send("stop")
        #expect(try waitUntil(seconds: 5, every: .milliseconds(20)) { try state() == "stopped\n" })
        master.send("locate 200000")
        master.send("play")
        try recorder.wait(forClicks: recorder.clicks + 8)
        master.send("stop")
        #expect(try waitUntil(seconds: 5, every: .milliseconds(20)) { try state() == "stopped\n" })
        reader.finish()
        recorder.finish()
        master.send("quit")
        master.finish()
        metronome.interrupt()
        metronome.waitUntilExit()

        // Where each of its beats begins: between two cycles whose beat differs, the first's frame and its ticks to go.
        let rows = try TransportProbe.rows(positionsFile).filter { $0["rolling"] as? Bool == true }
        // A roll that starts on a beat (tick 0, as at frame 0) starts one there.
        var beats: [(frame: Double, bell: Bool)] = rows.compactMap { row in
            guard (row["tick"] as? NSNumber)?.intValue == 0, let frame = (row["frame"] as? NSNumber)?.doubleValue else { return nil }
            return (frame, row["beat"] as? Int == 1)
        }
        for (a, b) in zip(rows, rows.dropFirst()) {
            guard let frameA = (a["frame"] as? NSNumber)?.doubleValue, let frameB = (b["frame"] as? NSNumber)?.doubleValue,
                  frameB - frameA == 1024, let beatA = a["beat"] as? Int, let beatB = b["beat"] as? Int, beatA != beatB,
                  let tickA = (a["tick"] as? NSNumber)?.doubleValue, let tickB = (b["tick"] as? NSNumber)?.doubleValue else { continue }
            // Ticks a frame over that cycle, as it counted them.
            let perFrame = (tickB + 1920 - tickA) / 1024
            beats.append((frameA + (1920 - tickA) / perFrame, beatB == 1))
        }
        let clicks = try TransportProbe.rows(file(clicksFile))
        #expect(clicks.count >= 14 && beats.count >= 14, "\(clicks.count) clicks, \(beats.count) beats read")
        // A beat is found only where the reader read both cycles around it: a Python
        // client on a loaded machine misses one at times, and a click there is not judged.
        let read = Set(rows.compactMap { ($0["frame"] as? NSNumber)?.int64Value })
        var judged = 0
        for click in clicks {
            #expect(click["rolling"] as? Bool == true, "a click while stopped: \(click)")
            guard let frame = (click["transportFrame"] as? NSNumber)?.doubleValue,
                  let nearest = beats.min(by: { abs($0.frame - frame) < abs($1.frame - frame) }) else { continue }
            // Its beat lies in the cycle of the click or one beside it, found from that cycle and the next.
            let cycle = read.first { $0 <= Int64(frame) && Int64(frame) < $0 + 1024 }
            guard let cycle, read.isSuperset(of: [cycle - 1024, cycle + 1024]) || abs(nearest.frame - frame) <= 96 else { continue }
            judged += 1
            #expect(abs(nearest.frame - frame) <= 96, "click at \(frame), its beat at \(nearest.frame)")
            #expect((click["bell"] as? Bool) == nearest.bell, "click at \(frame): \(click)")
        }
        #expect(judged >= clicks.count - 2, "\(judged) of \(clicks.count) clicks judged: the reader missed the cycles of the rest")
    }

    private func file(_ path: String) -> String { path }

    /// No timebase master: the transport's start and stop start and stop the
    /// metronome's own grid (klick's -t), a bar from its bell at each start.
    @Test(.enabled(if: ready || required))
    func withoutAMasterTheTransportStartsAndStopsOurGrid() throws {
        try #require(Self.ready, "\(Self.needs)")
        let loopback = try JackLoopback()
        let metronome = try metronome(loopback, ["--transport", "follow", "--bpm", "120", "--duration", "60"])
        let file = loopback.home.file("clicks.jsonl")
        let recorder = try TransportProbe(on: loopback, ["record", "metronome:out", "60", file], name: "recorder")
        try recorder.wait(forLine: "recording")
        let starts = 2
        for _ in 0..<starts {
            try transport("play", loopback)
            try recorder.wait(forClicks: recorder.clicks + 5)
            try transport("stop", loopback)
        }
        recorder.finish()
        metronome.interrupt()
        metronome.waitUntilExit()
        let clicks = try TransportProbe.rows(file)
        #expect(clicks.allSatisfy { $0["rolling"] as? Bool == true }, "\(clicks)")
        // Each start's clicks: the bell first, then every 24 000 frames (120 bpm), a bell every fourth.
        var index = 0
        var runs = 0
        while index < clicks.count {
            var end = index + 1
            while end < clicks.count, let a = (clicks[end - 1]["transportFrame"] as? NSNumber)?.int64Value,
                  let b = (clicks[end]["transportFrame"] as? NSNumber)?.int64Value, b - a == 24_000 { end += 1 }
            for (offset, click) in clicks[index..<end].enumerated() {
                #expect((click["bell"] as? Bool) == (offset % 4 == 0), "start \(runs), click \(offset): \(click)")
            }
            runs += 1
            index = end
        }
        #expect(runs == starts, "\(clicks)")
    }

    /// Leading: the BBT another client reads at every cycle, across relocations
    /// to arbitrary frames (backwards too), is the exact grid's: the bar and
    /// beat of the last click at or before the frame, the ticks of the grid 1920
    /// times finer, the meter and the bpm; the transport rolls from the start.
    @Test(.enabled(if: ready || required))
    func leadingEveryFrameHasTheExactGridsBarBeatAndTick() throws {
        try #require(Self.ready, "\(Self.needs)")
        let loopback = try JackLoopback()
        let metronome = try metronome(loopback, ["--transport", "master", "--bpm", "137", "--meter", "7/8", "--duration", "30"])
        let file = loopback.home.file("positions.jsonl")
        let reader = try TransportProbe(on: loopback, ["read", "6", file, "123457", "9", "2000000", "77777"], name: "reader")
        #expect(reader.finish() == 0, "\(reader.log)")
        metronome.interrupt()
        metronome.waitUntilExit()
        #expect(metronome.terminationReason == .uncaughtSignal && metronome.terminationStatus == SIGINT)

        let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), meter: try Meter(parsing: "7/8"), rate: .standard)
        let rows = try TransportProbe.rows(file).filter { $0["rolling"] as? Bool == true }
        #expect(rows.count > 200)
        var relocated = Set<Int64>()
        var previous: Int64?
        for row in rows {
            let frame = try #require((row["frame"] as? NSNumber)?.int64Value)
            if let previous, frame != previous + 1024 { relocated.insert(frame) }
            previous = frame
            let click = schedule.firstClick(atOrAfter: frame + 1) - 1
            var tick: Int64 = 0
            while tick < 1919, schedule.frame(ofTick: click * 1920 + tick + 1, ticksPerBeat: 1920) <= frame { tick += 1 }
            let expected: [String: Int64] = ["bar": click / 7 + 1, "beat": click % 7 + 1, "tick": tick, "bar_start_tick": click / 7 * 7 * 1920]
            for (key, value) in expected {
                #expect((row[key] as? NSNumber)?.int64Value == value, "frame \(frame): \(key) \(row[key] ?? "none"), not \(value)")
            }
            #expect((row["beats_per_bar"] as? NSNumber)?.doubleValue == 7 && (row["beat_type"] as? NSNumber)?.doubleValue == 8)
            #expect((row["beats_per_minute"] as? NSNumber)?.doubleValue == 137 && (row["ticks_per_beat"] as? NSNumber)?.doubleValue == 1920)
        }
        // The four relocations were read (the first cycle at 0 counts too).
        #expect([123457, 9, 2_000_000, 77777].allSatisfy { relocated.contains($0) }, "\(relocated.sorted())")
    }

    /// Leading a tempo map with a ramp and a meter change: at every cycle, and
    /// after relocations into each part, the bar and beat are those of the
    /// map's click at or before the frame, and the meter the map's there.
    @Test(.enabled(if: ready || required))
    func leadingAMapTheBarAndBeatAreItsClicks() throws {
        try #require(Self.ready, "\(Self.needs)")
        let loopback = try JackLoopback()
        let text = "2 120\n2 120-150\n4 7/8 150\n"
        let mapFile = loopback.home.file("map.txt")
        try text.write(toFile: mapFile, atomically: true, encoding: .utf8)
        let metronome = try metronome(loopback, ["--transport", "master", "--tempo-map", mapFile])
        let file = loopback.home.file("positions.jsonl")
        let reader = try TransportProbe(on: loopback, ["read", "5", file, "250000", "520000", "100000", "9"], name: "reader")
        #expect(reader.finish() == 0, "\(reader.log)")
        metronome.interrupt()
        metronome.waitUntilExit()

        let clicks = try PlannedRun(.map(try parseMap(text), first: 0, loops: false), rate: 48_000).clicks
        #expect(clicks.count == 8 + 8 + 28)
        let rows = try TransportProbe.rows(file).filter { $0["rolling"] as? Bool == true }
        #expect(rows.count > 150)
        var sections = Set<Int64>()
        for row in rows {
            let frame = try #require((row["frame"] as? NSNumber)?.int64Value)
            guard let click = clicks.last(where: { $0.frame <= frame }), frame < clicks[clicks.count - 1].frame else { continue }
            sections.insert(click.bar < 2 ? 0 : click.bar < 4 ? 1 : 2)
            #expect((row["bar"] as? NSNumber)?.int64Value == click.bar + 1 && (row["beat"] as? NSNumber)?.int64Value == Int64(click.beatInBar) + 1,
                    "frame \(frame): \(row), not bar \(click.bar + 1) beat \(click.beatInBar + 1)")
            let meter = click.bar < 4 ? (4.0, 4.0) : (7.0, 8.0)
            #expect((row["beats_per_bar"] as? NSNumber)?.doubleValue == meter.0 && (row["beat_type"] as? NSNumber)?.doubleValue == meter.1,
                    "frame \(frame): \(row)")
            if click.bar < 2 { #expect((row["beats_per_minute"] as? NSNumber)?.doubleValue == 120) }
        }
        #expect(sections == [0, 1, 2], "every part of the map was read")
    }

    /// Another client follows us: jack_midi_clock sends MIDI clock at our
    /// tempo (24 a quarter note) from our timebase, a Start when we roll.
    @Test(.enabled(if: (ready && FileManager.default.fileExists(atPath: "/usr/bin/jack_midi_clock")) || required))
    func jackMidiClockFollowsOurTempo() throws {
        try #require(Self.ready && FileManager.default.fileExists(atPath: "/usr/bin/jack_midi_clock"), "jack-midi-clock is needed")
        let loopback = try JackLoopback()
        let clock = try loopback.launch("/usr/bin/jack_midi_clock", [], log: loopback.home.file("midiclock.log"))
        defer { clock.terminate() }
        try loopback.waitForPort("jack_midi_clock:mclk_out")
        let file = loopback.home.file("midi.jsonl")
        let recorder = try TransportProbe(on: loopback, ["midi", "jack_midi_clock:mclk_out", "6", file], name: "recorder")
        try recorder.wait(forLine: "recording")
        let metronome = try metronome(loopback, ["--transport", "master", "--bpm", "137", "--duration", "30"])
        #expect(recorder.finish() == 0, "\(recorder.log)")
        metronome.interrupt()
        metronome.waitUntilExit()
        let events = try TransportProbe.rows(file)
        let bytes = events.map { ($0["bytes"] as? [Int]) ?? [] }
        #expect(bytes.contains([0xFA]) || bytes.contains([0xFB]), "a Start or a Continue: \(bytes.prefix(5))")
        let clocks = events.filter { ($0["bytes"] as? [Int]) == [0xF8] }.compactMap { ($0["frameTime"] as? NSNumber)?.int64Value }
        #expect(clocks.count > 150)
        guard let first = clocks.first, let last = clocks.last, clocks.count > 1 else { return }
        // 24 a quarter at 137 bpm: 60·48000 / (137·24) = 875.9 frames apart, on average within a frame.
        let mean = Double(last - first) / Double(clocks.count - 1)
        #expect(abs(mean - 60 * 48_000 / (137 * 24.0)) < 1, "clocks \(mean) frames apart")
    }

    /// Leading is conditional: another master keeps the role (one line, 69)
    /// unless `--force` takes it; the role is given back at exit.
    @Test(.enabled(if: ready || required))
    func anotherMasterKeepsTheRoleUnlessForcedAndOursIsReleasedAtExit() throws {
        try #require(Self.ready, "\(Self.needs)")
        let loopback = try JackLoopback()
        let master = try TransportProbe(on: loopback, ["master", "150", "4", "round"], name: "master")
        try master.wait(forLine: "master")
        let refused = try run(metronomeBinary(), ["--jack", "--no-connect", "--no-pendulum", "--transport", "master", "--duration", "1"],
                              environment: loopback.environment)
        #expect(refused.status == 69)
        #expect(refused.standardError == "metronome: another JACK client is the timebase master: --transport master --force takes the role from it\n")

        let forced = try metronome(loopback, ["--transport", "master", "--force", "--bpm", "90", "--duration", "30"])
        let read = { () throws -> [[String: Any]] in
            let file = loopback.home.file("positions.jsonl")
            _ = try TransportProbe(on: loopback, ["read", "1", file], name: "reader").finish()
            return try TransportProbe.rows(file)
        }
        #expect(try read().contains { ($0["beats_per_minute"] as? NSNumber)?.doubleValue == 90 }, "ours publishes")
        master.finish()
        forced.interrupt()
        forced.waitUntilExit()
        let claim = try run("/usr/bin/python3", [TransportProbe.script, "claim"], environment: loopback.environment)
        #expect(claim.standardOutput == "claimed\n", "the role was not released: \(claim.standardOutput)\(claim.standardError)")
    }

    /// `jack_transport`'s own command (it reads them on its input), then the
    /// transport polled until it has taken effect.
    func transport(_ command: String, _ loopback: JackLoopback) throws {
        let script = loopback.home.file("transport.sh")
        try "echo \(command) | /usr/bin/jack_transport".write(toFile: script, atomically: true, encoding: .utf8)
        #expect(try run("/bin/sh", [script], environment: loopback.environment).status == 0)
        let wanted = command == "play" ? "rolling" : "stopped"
        let state = { try run("/usr/bin/python3", [TransportProbe.script, "state"], environment: loopback.environment).standardOutput }
        #expect(try waitUntil(seconds: 5, every: .milliseconds(20)) { try state().hasPrefix(wanted) }, "the transport is not \(wanted)")
    }
}
