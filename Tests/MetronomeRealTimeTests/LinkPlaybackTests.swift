import Foundation
import Testing
@testable import MetronomeLink
import MetronomeTestSupport

/// `metronome --link` heard beside LinkHut (see `LinkBand`): in the Link
/// suite, serialized, since Link sessions on one host find each other.
extension LinkPeerTests {
    /// Frames of 3 ms at 48 kHz: Link's test plan asks an app within 3 ms of LinkHut.
    static let threeMilliseconds: Int64 = 144

    /// The metronome joins at 90 while LinkHut plays at 127: it plays LinkHut's
    /// tempo, each click within 3 ms of one of LinkHut's, the bell exactly on
    /// LinkHut's downbeats, none doubled or skipped; LinkHut moves to 128 and
    /// it follows at once. Through ALSA's jack plugin, and as a JACK client of
    /// its own (`--jack`). A take whose server had an xrun or whose LinkHut
    /// clicked off its own timeline (`LinkBand.hutIsSteady`) is taken again,
    /// four times at most (`takes`: a take in which an expectation failed is taken again too).
    @Test(.enabled(if: LinkBand.isAvailable || required), arguments: [false, true])
    func theMetronomeAdoptsLinkHutsTempoFollowsItsChangeAndClicksOnItsBeats(jack: Bool) throws {
        try #require(LinkBand.isAvailable, "LinkHut, jackd2, libasound2-plugins, libjack-jackd2-dev and clang are needed: run scripts/setup --test")
        try takes(5, "LinkHut's tempo and beats") { attempt, last in
            let band = try LinkBand(bpm: 127)
            try band.startRecording(seconds: 16)
            let arguments = ["--link", "--bpm", "90", "--duration", "14"]
            let metronome = try jack ? band.jackMetronome(arguments) : band.metronome(device: "metA", arguments)
            defer { metronome.stop(sending: "") }
            // Its lines (stdout is no terminal) say it plays in LinkHut's session.
            metronome.waitUntil("the metronome's fifth bar, with LinkHut") { metronome.lines.contains { $0.hasPrefix("bar 5 ") && $0.hasSuffix("link: 1 peer") } }
            band.hut.press("e")
            band.hut.hut.waitUntil("LinkHut at 128") { band.hut.status?.tempo == 128 }
            let channels = try band.recording()

            let hut = LinkBand.hutClicks(channels[0]), ours = LinkBand.metronomeClicks(channels[1])
            // Link keeps a beat as whole microseconds: 472441 µs at 127 bpm, 468750 µs at 128.
            if !last, band.hut.serverHadXrun || !LinkBand.hutIsSteady(hut, beatMicroseconds: [472_441, 468_750]) { return false }
            try #require(hut.count > 20 && ours.count > 20, "LinkHut \(hut.count) clicks, the metronome \(ours.count)")
            let matched = LinkBand.nearest(ours.map(\.frame), in: hut.map(\.frame))
            for (index, match) in matched.enumerated() {
                #expect(abs(match.offset) <= Self.threeMilliseconds, "click \(index) at \(match.ours): \(match.offset) frames from LinkHut's")
                #expect(ours[index].bell == hut[match.theirs].downbeat, "click \(index) at \(match.ours): bell \(ours[index].bell)")
            }
            // One click for each of LinkHut's from the first to the last: none doubled or skipped.
            let theirs = matched.map(\.theirs)
            #expect(theirs == Array((theirs.first ?? 0)...(theirs.last ?? 0)), "\(theirs)")
            // The tempo: LinkHut's 127, then 128, never the 90 asked for.
            let intervals = zip(ours, ours.dropFirst()).map { $1.frame - $0.frame }
            let before = 472_441 * 48_000 / 1_000_000.0, after = 468_750 * 48_000 / 1_000_000.0
            func deviation(_ interval: Int64) -> Double { min(abs(Double(interval) - before), abs(Double(interval) - after)) }
            #expect(intervals.filter { deviation($0) < 3 && abs(Double($0) - before) < 3 }.count >= 6, "intervals \(intervals)")
            #expect(intervals.filter { deviation($0) < 3 && abs(Double($0) - after) < 3 }.count >= 6, "intervals \(intervals)")
            // Steady: after the first two bars (the line still settling), and but for the one that changed
            // tempo, within 2 frames of an exact interval (22677 or 22678; 22500), or no
            // farther than LinkHut's own on a machine loaded enough to move the dummy driver's cycles.
            let hutIntervals = zip(hut, hut.dropFirst()).map { $1.frame - $0.frame }
            let allowed = max(2.9, hutIntervals.map(deviation).sorted().dropLast().last ?? 0)
            let unsteady = intervals.dropFirst(8).filter { deviation($0) > allowed }
            #expect(unsteady.count <= 1, "intervals \(intervals), LinkHut's \(hutIntervals), offsets \(matched.map(\.offset))")
            #expect(metronome.lines.contains { $0.contains("127 bpm") } && metronome.lines.contains { $0.contains("128 bpm") },
                    "\(metronome.lines.suffix(10))")
            print("Link beside LinkHut\(jack ? " (--jack)" : ""): \(matched.count) clicks, offsets \(matched.map(\.offset).min() ?? 0) to \(matched.map(\.offset).max() ?? 0) frames, attempt \(attempt)")
            return true
        }
    }

    /// `--midi-clock` in LinkHut's session (`--jack`): the clock runs on
    /// Link's beats: its first message after the clocks alone is a Song
    /// Position and a Start or Continue on the first click's frame; from it
    /// every click is the first of 24 clocks on the same frame, and the
    /// 24 from each click (from the third) split the tempo's beat evenly, each within a frame
    /// (Link's beats are whole frames a frame or two either side of its tempo's
    /// even grid; the clock splits the tempo's beat from each).
    @Test(.enabled(if: (LinkBand.isAvailable && TransportProbe.isInstalled) || required))
    func theClockOutRunsOnLinksBeats() throws {
        try #require(LinkBand.isAvailable && TransportProbe.isInstalled, "LinkHut, jackd2, python3-jack-client and clang are needed: run scripts/setup --test")
        try takes(5, "the clock on Link's beats") { attempt, last in
            let band = try LinkBand(bpm: 127)
            let file = band.hut.home.file("clock.jsonl")
            let recorder = try TransportProbe(environment: band.hut.environment, home: band.hut.home, ["midi", "-", "8", file, "audio"], name: "clock")
            try recorder.wait(forLine: "recording")
            let metronome = try band.jackMetronome(["--link", "--bpm", "90", "--duration", "12", "--midi-clock", "--midi-connect", "probe_midi:in"],
                                                   connect: "probe_midi:audio")
            defer { metronome.stop(sending: "") }
            #expect(recorder.finish() == 0, "\(recorder.log)")
            if !last, band.hut.serverHadXrun { return false }
            let rows = try TransportProbe.rows(file)
            func frame(_ row: [String: Any]) -> Int64 { (row["frameTime"] as? NSNumber)?.int64Value ?? -1 }
            let messages = rows.compactMap { row in (row["bytes"] as? [Int]).map { (frame: frame(row), bytes: $0) } }
            let clicks = rows.filter { $0["sample"] != nil }.map(frame)
            let first = try #require(clicks.first, "no click: \(messages.prefix(4))")
            let others = messages.filter { $0.bytes != [0xF8] }
            try #require(others.count >= 2, "\(others)")
            #expect(others[0].bytes.first == 0xF2 && others[0].frame == first, "\(others.prefix(2)), first click at \(first)")
            #expect([[0xFA], [0xFB]].contains(others[1].bytes) && others[1].frame == first, "\(others.prefix(2)), first click at \(first)")
            let clocks = messages.filter { $0.bytes == [0xF8] && $0.frame >= first }.map(\.frame)
            try #require(clicks.count >= 10 && clocks.count >= 24 * (clicks.count - 1) + 1, "\(clicks.count) clicks, \(clocks.count) clocks")
            #expect((0..<clicks.count).allSatisfy { clocks[$0 * 24] == clicks[$0] }, "clicks \(clicks), beat clocks \(stride(from: 0, to: clocks.count, by: 24).map { clocks[$0] })")
            // From the third beat (the first two can still be settling onto the session's line): each clock
            // within a frame of its place on the tempo's even split of the beat from its click, 127 bpm's
            // 2 880 000/127 frames over 24: |3048·(clock − click) − tick·2 880 000| ≤ 3048 (24·127). Not the split of
            // the span to the next click: Link places that click up to 2 frames off the tempo's grid (a span of
            // 22679 frames put the 24th clock 2.04 frames from the span's split, twice in a CI rehearsal).
            func offPlace(_ beat: Int, _ tick: Int) -> Bool {
                let scaled: Int64 = (clocks[beat * 24 + tick] - clicks[beat]) * 3_048
                let place: Int64 = Int64(tick) * 2_880_000
                return abs(scaled - place) > 3_048
            }
            let uneven = (2..<clicks.count - 1).filter { beat in (1..<24).contains { offPlace(beat, $0) } }
            func spanAndClocks(_ beat: Int) -> (span: Int64, clocks: [Int64]) {
                (clicks[beat + 1] - clicks[beat], (0..<24).map { clocks[beat * 24 + $0] - clicks[beat] })
            }
            #expect(uneven.isEmpty, "beats whose clocks are uneven: \(uneven.map(spanAndClocks))")
            print("MIDI clock in LinkHut's session: \(clicks.count) clicks, \(clocks.count) clocks, attempt \(attempt)")
            return true
        }
    }

    /// Two metronomes join LinkHut's session at other tempi, one on a terminal:
    /// its status line shows both peers; they click within 1 ms of each other
    /// and 3 ms of LinkHut, bells together on its downbeats; its Up key (+1 bpm)
    /// moves LinkHut and the other metronome (a take whose server had an xrun,
    /// in which a metronome underran or the two drifted over 1 ms apart, or
    /// whose LinkHut clicked off its own line is taken again, four times at most (`takes`: a take in which an expectation failed is taken again too)). The same through ALSA's `plug`
    /// in front of the jack plugin: the server behind it is found, and its
    /// period counted in Link's latency (missed, they clicked 1010 to 1050
    /// frames, 21 ms, after LinkHut).
    @Test(.enabled(if: (LinkBand.isAvailable && TerminalTests.tmuxInstalled) || required), arguments: LinkBand.Devices.allCases)
    func twoMetronomesClickTogetherAndATempoKeyInOneMovesLinkHutAndTheOther(devices: LinkBand.Devices) throws {
        try #require(LinkBand.isAvailable && TerminalTests.tmuxInstalled, "LinkHut, jackd2, libasound2-plugins, libjack-jackd2-dev, clang and tmux are needed: run scripts/setup --test")
        try takes(5, "two metronomes with LinkHut") { attempt, last in
            let band = try LinkBand(bpm: 100, devices: devices)
            try band.startRecording(seconds: 18)
            let environment = band.hut.environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
            let errors = band.hut.home.file("metA.err")
            let pane = try TmuxPane(command: "\(environment) \(metronomeBinary()) --link --bpm 60 --device metA --beat-sound \(band.sounds.beat) --bell-sound \(band.sounds.bell) --duration 16 2>\(errors)",
                                    width: 120)
            let other = try band.metronome(device: "metB", ["--link", "--bpm", "200", "--duration", "16"])
            defer { other.stop(sending: "") }
            try pane.waitUntil("the status line shows two peers") { try pane.capture().contains("100 bpm") && pane.capture().contains("link: 2 peers") }
            other.waitUntil("the other metronome's third bar, at LinkHut's tempo with two peers") {
                other.lines.contains { $0.hasPrefix("bar 3 ") && $0.contains("100 bpm") && $0.hasSuffix("link: 2 peers") }
            }
            try pane.send("Up")
            #expect(band.hut.hut.waitUntil("LinkHut at 101") { band.hut.status?.tempo == 101 })
            other.waitUntil("the other metronome at 101") { other.lines.contains { $0.contains("101 bpm") } }
            try pane.waitUntil("the status line at 101") { try pane.capture().contains("101 bpm") }
            let channels = try band.recording()
            // A JACK server that missed cycles (a loaded machine) moved the clicks of the clients
            // that missed them by a period, and LinkHut's late callbacks can tilt its line: the
            // harness, not the metronome; taken again. Link's beats: 600000 µs at 100 bpm, 594059 µs at 101.
            let hut = LinkBand.hutClicks(channels[0])
            // So is a take in which either metronome's device underran (its period came late through the plugin).
            let underran = other.lines.contains { $0.contains("underrun") }
                || ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").contains("underrun")
            let first = LinkBand.metronomeClicks(channels[1]), second = LinkBand.metronomeClicks(channels[2])
            // And one in which the two drifted more than 1 ms apart while each kept within 3 ms of LinkHut: on this
            // 2-core machine, loaded, each one's estimate of Link's clock (from its device's late reports) moved
            // (measured: 49 to 64 frames apart in 1 of 4 takes here, twice in full CI runs). The last take must hold it.
            let apart = first.isEmpty || second.isEmpty
                || LinkBand.nearest(first.map(\.frame), in: second.map(\.frame)).dropFirst(2).contains { abs($0.offset) > 48 }
            if !last, band.hut.serverHadXrun || underran || apart || !LinkBand.hutIsSteady(hut, beatMicroseconds: [600_000, 594_059]) {
                print("two metronomes with LinkHut, attempt \(attempt) taken again: xrun \(band.hut.serverHadXrun), underrun \(underran), apart \(apart)")
                return false
            }

            try #require(hut.count > 20 && first.count > 20 && second.count > 20, "clicks: LinkHut \(hut.count), \(first.count), \(second.count)")
            for ours in [first, second] {
                for (index, match) in LinkBand.nearest(ours.map(\.frame), in: hut.map(\.frame)).enumerated() {
                    #expect(abs(match.offset) <= Self.threeMilliseconds, "click \(index) at \(match.ours): \(match.offset) frames from LinkHut's")
                    #expect(ours[index].bell == hut[match.theirs].downbeat, "click \(index) at \(match.ours): bell \(ours[index].bell)")
                }
            }
            // The two metronomes: once both play, every click of one within 1 ms of one of the other's, the same sound.
            let start = max(first[0].frame, second[0].frame) - 48, end = min(first[first.count - 1].frame, second[second.count - 1].frame) + 48
            let a = first.filter { $0.frame >= start && $0.frame <= end }, b = second.filter { $0.frame >= start && $0.frame <= end }
            #expect(a.count == b.count && a.count > 10, "\(a.count) and \(b.count) clicks while both play")
            for (index, match) in LinkBand.nearest(a.map(\.frame), in: b.map(\.frame)).enumerated() {
                #expect(abs(match.offset) <= 48, "click \(index) at \(match.ours): \(match.offset) frames from the other's")
                #expect(a[index].bell == b[match.theirs].bell)
            }
            // After the key both play 101 bpm: 594059 µs a beat, each interval within 1 ms (a beat at
            // 100 or 102 bpm is 285 frames away). Link moves a peer's timeline by a fraction of a
            // millisecond at times as its clock estimate settles (twice in full suites, 22 frames), so
            // not within 12 frames; where each click falls against LinkHut's is checked above.
            let beat101 = 594_059 * 48_000 / 1_000_000.0
            for ours in [first, second] {
                let intervals = zip(ours, ours.dropFirst()).map { $1.frame - $0.frame }
                #expect(intervals.suffix(4).allSatisfy { abs(Double($0) - beat101) <= 48 }, "\(intervals); server xrun: \(band.hut.serverHadXrun)")
            }
            return true
        }
    }

    /// Alone in a session the first click is bar 1's bell, as soon as Link's line is fitted
    /// (a second of the device's reports); it was whatever beat fell next, 1.5 s in.
    @Test(.enabled(if: LinkHutPeer.isInstalled || required))
    func aloneTheFirstClickIsTheFirstBeatOfABar() throws {
        try takes(5, "alone, bar 1 first") { attempt, last in
            let metronome = try PeerProcess(metronomeBinary(), ["--link", "--bpm", "120", "--duration", "2.5", "--verbose"],
                                            environment: ["ALSA_CONFIG_PATH": "/nonexistent"], name: "metronome alone")
            defer { metronome.stop(sending: "") }
            metronome.waitUntil("its first two clicks") { metronome.lines.filter { $0.hasPrefix("bar ") }.count >= 2 }
            let clicks = metronome.lines.filter { $0.hasPrefix("bar ") }
            // "bar 1 beat 1  frame 53248  1.109s"
            let seconds = clicks.first.flatMap { $0.split(separator: " ").last.flatMap { Double($0.dropLast()) } }
            // A loaded machine may keep the first periods from the device: taken again.
            if !last, (seconds ?? 0) > 1.3 { return false }
            #expect(clicks.first?.hasPrefix("bar 1 beat 1 ") == true && clicks.dropFirst().first?.hasPrefix("bar 1 beat 2 ") == true, "\(clicks)")
            #expect(seconds.map { $0 <= 1.3 } == true, "\(clicks)")
            return true
        }
    }

    /// `--bpm 10` is below Link's 20: one warning, and the session it makes
    /// plays 20 (a peer joining later finds 20), while the metronome plays on.
    @Test(.enabled(if: LinkHutPeer.isInstalled || required))
    func aTempoBelowLinksRangeIsClampedWithAWarning() throws {
        let metronome = try PeerProcess(metronomeBinary(), ["--link", "--bpm", "10", "--duration", "4"],
                                        environment: ["ALSA_CONFIG_PATH": "/nonexistent"], name: "metronome at 10")
        defer { metronome.stop(sending: "") }
        metronome.waitUntil("the warning") { metronome.lines.contains { $0.hasPrefix("metronome: warning: Ableton Link") } }
        #expect(metronome.lines.contains("metronome: warning: Ableton Link keeps tempi within 20 to 999 bpm: --link plays 20 bpm, not 10"))
        // Its session is older than Link's 500 ms: a newcomer adopts it.
        let started = Date()
        while Date() < started.addingTimeInterval(0.7) { usleep(10_000) }
        let link = try LinkSession(bpm: 120)
        try link.enable()
        #expect(eventually { link.peers == 1 && isTempo(link.captureAppState().tempo, 20) }, "tempo \(link.captureAppState().tempo)")
    }

    /// With start and stop shared, the metronome is silent while the session
    /// is stopped; LinkHut's start starts it on LinkHut's downbeat; its Space
    /// stops LinkHut, and its next Space starts both again, waiting for the
    /// session's next downbeat, bell first. A take whose server had an xrun or
    /// whose LinkHut clicked off its own line is taken again, four times at most (`takes`: a take in which an expectation failed is taken again too).
    @Test(.enabled(if: (LinkBand.isAvailable && TerminalTests.tmuxInstalled) || required))
    func startAndStopAreSharedAndAStartWaitsForTheDownbeat() throws {
        try #require(LinkBand.isAvailable && TerminalTests.tmuxInstalled, "LinkHut, jackd2, libasound2-plugins, libjack-jackd2-dev, clang and tmux are needed: run scripts/setup --test")
        try takes(5, "shared start and stop") { attempt, last in
            let band = try LinkBand(bpm: 110, startStopSync: true)
            try band.startRecording(seconds: 20)
            let environment = band.hut.environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
            let pane = try TmuxPane(command: "\(environment) \(metronomeBinary()) --link-start-stop --bpm 80 --device metA --beat-sound \(band.sounds.beat) --bell-sound \(band.sounds.bell) 2>/dev/null",
                                    width: 120)
            try pane.waitUntil("the metronome joins") { try pane.capture().contains("link: 1 peer") }
            #expect(band.hut.hut.waitUntil("LinkHut sees it") { band.hut.status?.peers == 1 })
            // A second of the stopped session: nothing to hear.
            let joined = Date()
            while Date() < joined.addingTimeInterval(1) { usleep(20_000) }
            band.hut.press(" ")
            #expect(band.hut.hut.waitUntil("LinkHut plays") { band.hut.status?.playing == true })
            // Four seconds of both, then our Space stops the session.
            let started = Date()
            while Date() < started.addingTimeInterval(4) { usleep(20_000) }
            // Mid-beat: a stop within the audio already written ahead of a beat (85 ms here) still
            // plays that beat here and not at LinkHut's (a known limit: written audio is not taken back).
            #expect(band.hut.hut.waitUntil("LinkHut mid-beat") {
                guard let beats = band.hut.status?.beats else { return false }
                let phase = beats - beats.rounded(.down)
                return phase >= 0.3 && phase <= 0.5
            })
            try pane.send("Space")
            #expect(band.hut.hut.waitUntil("our Space stops LinkHut") { band.hut.status?.playing == false })
            let stopped = Date()
            while Date() < stopped.addingTimeInterval(1.5) { usleep(20_000) }
            try pane.send("Space")
            #expect(band.hut.hut.waitUntil("our Space starts LinkHut") { band.hut.status?.playing == true })
            let channels = try band.recording()

            let hut = LinkBand.hutClicks(channels[0]), ours = LinkBand.metronomeClicks(channels[1])
            // The harness's server missed cycles, or LinkHut clicked off its own line (545454 µs a beat): taken again.
            if !last, band.hut.serverHadXrun || !LinkBand.hutIsSteady(hut, beatMicroseconds: [545_454]) { return false }
            try #require(hut.count > 8 && ours.count > 8, "clicks: LinkHut \(hut.count), ours \(ours.count)")
            // Two runs each, split where a beat is missing (the stop).
            func runs(_ frames: [Int64]) -> [[Int64]] {
                var runs: [[Int64]] = [[]]
                for frame in frames {
                    if let last = runs[runs.count - 1].last, frame - last > 40_000 { runs.append([]) }
                    runs[runs.count - 1].append(frame)
                }
                return runs
            }
            let hutRuns = runs(hut.map(\.frame)), ourRuns = runs(ours.map(\.frame))
            #expect(hutRuns.count == 2 && ourRuns.count == 2, "LinkHut \(hutRuns), ours \(ourRuns)")
            for (theirs, mine) in zip(hutRuns, ourRuns) {
                // Each run starts together, on a downbeat with the bell, and ends together.
                #expect(abs(mine[0] - theirs[0]) <= Self.threeMilliseconds, "ours starts at \(mine[0]), LinkHut at \(theirs[0])")
                #expect(abs(mine[mine.count - 1] - theirs[theirs.count - 1]) <= Self.threeMilliseconds, "ours ends at \(mine.last ?? 0), LinkHut at \(theirs.last ?? 0)")
                #expect(hut.first { $0.frame == theirs[0] }?.downbeat == true)
                #expect(ours.first { $0.frame == mine[0] }?.bell == true)
                #expect(mine.count == theirs.count, "\(mine.count) clicks, LinkHut \(theirs.count)")
            }
            return true
        }
    }

    /// With start and stop shared, the status line shows the session's tempo (LinkHut's 110, not
    /// --bpm 80) and PAUSED while the session is stopped, whoever stopped it: it once showed
    /// PAUSED while it played after its own Space, and nothing while the session was stopped.
    @Test(.enabled(if: (LinkHutPeer.isInstalled && TerminalTests.tmuxInstalled) || required))
    func withStartAndStopSharedTheStatusLineShowsTheSessionsTransportAndTempo() throws {
        try #require(LinkHutPeer.isInstalled && TerminalTests.tmuxInstalled, "LinkHut and tmux are needed: run scripts/setup --test")
        let hut = try LinkHutPeer()
        hut.enableLink()
        hut.setTempo(110)
        hut.press("s")
        hut.hut.waitUntil("LinkHut shares start and stop") { hut.status?.startStopSync == true }
        hut.waitUntilTheSessionCanOnlyBeJoined()
        // No sound device: the metronome plays on its own clock.
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --link-start-stop --bpm 80 2>/dev/null", width: 120)
        func statusLine() throws -> String { try pane.capture().split(separator: "\n").last { $0.contains(" bpm") }.map(String.init) ?? "" }
        try pane.waitUntil("the stopped session's tempo, PAUSED") {
            let line = try statusLine()
            return line.contains("110 bpm") && line.contains("PAUSED") && line.contains("link: 1 peer")
        }
        hut.press(" ")
        #expect(hut.hut.waitUntil("LinkHut plays") { hut.status?.playing == true })
        try pane.waitUntil("LinkHut started it: no PAUSED") { try !statusLine().contains("PAUSED") }
        try pane.send("Space")
        #expect(hut.hut.waitUntil("our Space stops LinkHut") { hut.status?.playing == false })
        try pane.waitUntil("our Space stopped it: PAUSED") { try statusLine().contains("PAUSED") }
        try pane.send("Space")
        #expect(hut.hut.waitUntil("our Space starts LinkHut") { hut.status?.playing == true })
        try pane.waitUntil("our Space started it: no PAUSED") { try !statusLine().contains("PAUSED") }
        #expect(try statusLine().contains("110 bpm"))
        try pane.send("q")
        #expect(try pane.outcome(seconds: 10).status == 0)
    }

    /// Two metronomes on two machines (network namespaces joined by a veth
    /// pair): the second adopts the first's tempo; with the cable out each
    /// plays on alone at the last tempo, and a tempo key there moves only its
    /// own; with the cable back they are one session again, at one tempo.
    @Test(.enabled(if: (NetworkNamespaces.isAvailable && TerminalTests.tmuxInstalled) || required))
    func metronomesOnTwoMachinesFindEachOtherAndPlayOnWhenTheNetworkGoes() throws {
        try #require(NetworkNamespaces.isAvailable && TerminalTests.tmuxInstalled, "ip, root and tmux are needed")
        let network = try NetworkNamespaces()
        // No sound device: each plays on its own clock; the first on a terminal, for its keys.
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent ip netns exec \(network.names.0) \(metronomeBinary()) --link --bpm 100 2>/dev/null",
                                width: 120)
        try pane.waitUntil("the first metronome plays alone") { try pane.capture().contains("link: 0 peers") }
        let begun = Date()
        while Date() < begun.addingTimeInterval(0.7) { usleep(10_000) }  // its session older than Link's 500 ms
        let other = try PeerProcess("/bin/ip", ["netns", "exec", network.names.1, metronomeBinary(), "--link", "--bpm", "140"],
                                    environment: ["ALSA_CONFIG_PATH": "/nonexistent"], name: "metronome in \(network.names.1)")
        defer { other.stop(sending: "") }
        func lastBar() -> String { other.lines.last { $0.hasPrefix("bar ") } ?? "" }
        other.waitUntil("the second joins at the first's tempo") { lastBar().contains("100 bpm") && lastBar().hasSuffix("link: 1 peer") }
        try pane.waitUntil("the first sees it") { try pane.capture().contains("link: 1 peer") }

        // The cable out: alone, each plays on at 100.
        try network.setFirstLink(up: false)
        other.waitUntil("the second is alone", seconds: 20) { lastBar().hasSuffix("link: 0 peers") }
        let barsAlone = other.lines.filter { $0.hasPrefix("bar ") }.count
        other.waitUntil("the second plays on at 100") {
            other.lines.filter { $0.hasPrefix("bar ") }.count >= barsAlone + 2 && lastBar().contains("100 bpm")
        }
        try pane.waitUntil("the first is alone", seconds: 20) { try pane.capture().contains("link: 0 peers") }
        // A tempo of its own while apart moves only itself.
        for _ in 0..<5 { try pane.send("Up") }
        do {
            try pane.waitUntil("the first at 105") { try pane.capture().contains("105 bpm") }
        } catch {
            Issue.record("the first never reached 105: \((try? pane.capture()) ?? "")")
            throw error
        }
        let barsApart = other.lines.filter { $0.hasPrefix("bar ") }.count
        other.waitUntil("the second still at 100") { other.lines.filter { $0.hasPrefix("bar ") }.count >= barsApart + 1 }
        #expect(lastBar().contains("100 bpm"), "\(lastBar())")

        // The cable back: one session, one tempo.
        try network.setFirstLink(up: true)
        other.waitUntil("the second finds the first again", seconds: 20) { lastBar().hasSuffix("link: 1 peer") }
        try pane.waitUntil("the first finds the second again", seconds: 20) { try pane.capture().contains("link: 1 peer") }
        let tempo = #/(\d+(?:\.\d+)?) bpm/#
        #expect(eventually(10) {
            guard let screen = try? pane.capture(), let mine = screen.firstMatch(of: tempo), let theirs = lastBar().firstMatch(of: tempo) else { return false }
            return mine.1 == theirs.1
        }, "first: \((try? pane.capture()) ?? ""), second: \(lastBar())")
    }

    /// LinkHut on one machine, the metronome on another (network namespaces),
    /// heard side by side: with the cable out the metronome plays on at the
    /// session's last tempo while LinkHut moves on; with the cable back they
    /// are one session at one tempo, in phase again, with no interval shorter or
    /// longer than half a beat from its neighbours' (no click doubled, none
    /// skipped, no jump beyond the phase it has to make up), and its clicks
    /// are within 3 ms of LinkHut's again, bells on its downbeats. A run whose
    /// JACK server (not real-time here) reported an xrun is tried again, four times at
    /// most, as the loopback tests do: the last try must hold.
    @Test(.enabled(if: (LinkBand.isAvailable && NetworkNamespaces.isAvailable) || required))
    func aNetworkThatGoesAndComesBackLeavesTheMetronomePlayingAndBringsItBackInPhase() throws {
        try #require(LinkBand.isAvailable && NetworkNamespaces.isAvailable, "LinkHut, jackd2, libasound2-plugins, libjack-jackd2-dev, clang, ip and root are needed")
        try takes(5, "a network that goes and comes back") { attempt, last in
            let network = try NetworkNamespaces()
            let band = try LinkBand(bpm: 115, namespace: network.names.1)
            try band.startRecording(seconds: 34)
            let metronome = try band.metronome(device: "metA", ["--link", "--bpm", "90", "--duration", "32"], namespace: network.names.0)
            defer { metronome.stop(sending: "") }
            func lastBar() -> String { metronome.lines.last { $0.hasPrefix("bar ") } ?? "" }
            metronome.waitUntil("the metronome plays with LinkHut") { lastBar().contains("115 bpm") && lastBar().hasSuffix("link: 1 peer") }

            try network.setFirstLink(up: false)
            metronome.waitUntil("the metronome is alone", seconds: 20) { lastBar().hasSuffix("link: 0 peers") }
            band.hut.setTempo(118)
            let apart = metronome.lines.count
            metronome.waitUntil("two bars alone") { metronome.lines.count >= apart + 2 }
            #expect(metronome.lines[apart...].allSatisfy { !$0.hasPrefix("bar ") || $0.contains("115 bpm") }, "\(metronome.lines[apart...])")

            try network.setFirstLink(up: true)
            // One session again, at one tempo (Link's rule decides whose: here the metronome's 115 or LinkHut's 118).
            metronome.waitUntil("the metronome back with LinkHut, at one tempo", seconds: 20) {
                guard let tempo = band.hut.status?.tempo else { return false }
                return lastBar().contains(" \(Int(tempo)) bpm") && lastBar().hasSuffix("link: 1 peer")
            }
            let back = metronome.lines.count
            metronome.waitUntil("three bars together again") { metronome.lines.count >= back + 3 }
            let channels = try band.recording()
            if !last, band.hut.serverHadXrun { return false }  // the harness's server, not the metronome

            let hut = LinkBand.hutClicks(channels[0]), ours = LinkBand.metronomeClicks(channels[1])
            try #require(hut.count > 40 && ours.count > 40, "clicks: LinkHut \(hut.count), ours \(ours.count)")
            let beat115 = 60 * 48_000 / 115.0
            let intervals = zip(ours, ours.dropFirst()).map { Double($1.frame - $0.frame) }
            #expect(intervals.allSatisfy { $0 > beat115 * 0.5 && $0 < beat115 * 1.5 }, "\(intervals)")
            // At most one interval (the phase made up) off the tempi's by more than a millisecond.
            let beat118 = 60 * 48_000 / 118.0
            #expect(intervals.filter { abs($0 - beat115) > 48 && abs($0 - beat118) > 48 }.count <= 1, "\(intervals)")
            // The last two bars: with LinkHut again.
            let lastClicks = Array(ours.suffix(8))
            for (index, match) in LinkBand.nearest(lastClicks.map(\.frame), in: hut.map(\.frame)).enumerated() {
                #expect(abs(match.offset) <= Self.threeMilliseconds, "click at \(match.ours): \(match.offset) frames from LinkHut's")
                #expect(lastClicks[index].bell == hut[match.theirs].downbeat, "click at \(match.ours): bell \(lastClicks[index].bell)")
            }
            return true
        }
    }
}
