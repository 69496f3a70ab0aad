import CAllocationCounter
import Foundation
import Testing
@testable import MetronomeStats
import MetronomeTestSupport

/// `metronome stats`: the log's lines read, the figures summed, and the
/// binary's JSON checked against an independent reading of the same log
/// (`Tests/Tools/stats_oracle.py`: Python's json and datetime), on days set
/// by libfaketime.
@Suite struct StatsTests {
    static let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tools")
    let directory = TemporaryDirectory()

    func entries(_ text: String) -> PracticeLogFile { PracticeLogFile(bytes: Array(text.utf8)) }

    @Test func linesAreReadAndEverythingElseIsSkippedAndCounted() throws {
        let log = entries("""
            {"start":"2026-11-20T10:00:00+01:00","end":"x","playingSeconds":61.25,"preset":"ball\\"ad","songs":["W\\u00e4ltz","\\ud83e\\udd41"],"bpmMax":76.5,"take":{"notes":3,"meanMs":-3.25,"spreadMs":6.5}}
            garbage
            {"hello":1}
            {"start":"2026-02-30T10:00:00+00:00","playingSeconds":1}
            {"start":"2026-11-21T10:00:00+00:00","playingSeconds":-1}
            {"start":"2026-11-21T10:00:00+00:00","playingSeconds":1e400}
            {"start":"2026-11-21T10:00:00+00:00","playingSeconds":12} trailing
            {"start":"2026-11-21T10:00:00+00:00","playingSeconds":12

              \t
            {"start":"2026-11-22","playingSeconds":0}
            """)
        #expect(log.skipped == 7)
        #expect(log.entries == [
            PracticeLogEntry(date: CivilDate(year: 2026, month: 11, dayOfMonth: 20)!, playingSeconds: 61.25, preset: "ball\"ad",
                             songs: ["Wältz", "🥁"], bpmMax: 76.5, takeMean: -3.25, takeSpread: 6.5),
            PracticeLogEntry(date: CivilDate(year: 2026, month: 11, dayOfMonth: 22)!, playingSeconds: 0),
        ])
    }

    /// The scanner reads eight bytes at a time inside a string: a quote, a backslash or a control
    /// character is found at every offset in those eight, and the keys are told apart by all their bytes.
    @Test func stringsAreReadWhereverTheirEscapesFall() {
        for offset in 0..<20 {
            let before = String(repeating: "a", count: offset)
            let escaped = entries(#"{"start":"2026-11-20","playingSeconds":1,"preset":"\#(before)\"q","songs":["\#(before)\u00e9\#(before)"]}"#)
            #expect(escaped.entries.first?.preset == before + "\"q" && escaped.entries.first?.songs == [before + "é" + before], "\(offset)")
            let control = entries("{\"start\":\"2026-11-20\",\"playingSeconds\":1,\"end\":\"\(before)\u{1}\",\"preset\":\"p\"}")
            #expect(control.entries.isEmpty && control.skipped == 1, "\(offset)")
            let unicode = entries(#"{"start":"2026-11-20","playingSeconds":1,"preset":"\#(before)Ünï\#(before)"}"#)
            #expect(unicode.entries.first?.preset == before + "Ünï" + before, "\(offset)")
        }
        // bpmMin is no bpmMax, nor starts start, nor playingSecondz playingSeconds.
        let near = entries(#"{"start":"2026-11-20","playingSeconds":5,"bpmMin":300,"bpmMax":70,"starts":"x","playingSecondz":9,"Preset":"P"}"#)
        #expect(near.entries == [PracticeLogEntry(date: CivilDate(year: 2026, month: 11, dayOfMonth: 20)!, playingSeconds: 5, bpmMax: 70)])
    }

    /// Names are counted by their bytes, but two that are one String (é composed, and e with its
    /// accent) are one name in the figures, never two, and never a trap.
    @Test func namesThatAreOneStringAreOneName() {
        let day = CivilDate(year: 2026, month: 11, dayOfMonth: 20)!
        let stats = PracticeStats([PracticeLogEntry(date: day, playingSeconds: 60, preset: "caf\u{E9}", bpmMax: 90),
                                   PracticeLogEntry(date: day, playingSeconds: 30, preset: "cafe\u{301}", bpmMax: 95)], today: day)
        #expect(stats.byPreset == [.init(name: "café", seconds: 90, runs: 2)])
        #expect(stats.tempos.count == 1 && stats.tempos.first?.points.map(\.bpm) == [95])
        #expect(PracticeStats([PracticeLogEntry(date: day, playingSeconds: 60, preset: "cafe\u{301}")], today: day, piece: "caf\u{E9}").runs == 1)
    }

    /// A log cut into runs read on threads hands every line on once, in order, whatever the
    /// number of runs: runs that start on a newline, inside a line, or inside a line longer than a run.
    @Test func aLogReadInRunsHandsOnEveryLineOnce() throws {
        var lines: [String] = []
        for index in 0..<3_000 {
            switch index % 97 {
            case 5: lines.append("")
            case 11: lines.append("garbage \(index)")
            case 50: lines.append(String(repeating: "x", count: 200_000))
            default: lines.append(#"{"start":"2026-11-20","playingSeconds":\#(index)}"#)
            }
        }
        for ending in ["\n", ""] {
            let file = directory.file("runs.jsonl")
            try (lines.joined(separator: "\n") + ending).write(toFile: file, atomically: true, encoding: .utf8)
            for parts in [1, 2, 3, 7, 64] {
                var sinks = [[String]](repeating: [], count: parts)
                let result = PracticeLogFile.read(file, into: &sinks) { sink, line in
                    sink.append(String(decoding: line, as: UTF8.self))
                    return line.first == UInt8(ascii: "{")
                }
                guard case .success(let skipped)? = result else { Issue.record("\(String(describing: result))"); continue }
                #expect(sinks.flatMap { $0 } == lines, "\(parts) runs")
                #expect(skipped == lines.filter { !$0.isEmpty && !$0.hasPrefix("{") }.count)
                #expect(parts < 3 || sinks.filter { !$0.isEmpty }.count > 1, "\(parts) runs: all in one")
            }
        }
    }

    /// Sums of runs merged are the sums of the whole log (to the rounding of adding in another order).
    @Test func sumsOfRunsMergedAreTheSumsOfTheWhole() throws {
        let file = directory.file("log.jsonl")
        _ = try run("/usr/bin/python3", [Self.tools.appendingPathComponent("practice_log.py").path, file, "4000", "40", "2026-11-27", "7"])
        let today = CivilDate(year: 2026, month: 11, dayOfMonth: 27)!
        func summed(_ parts: Int, piece: String? = nil) -> PracticeStats {
            var sinks = (0..<parts).map { _ in PracticeStats.Summing(today: today, weeks: 3, piece: piece) }
            _ = PracticeLogFile.read(file, into: &sinks) { $0.add(line: $1) }
            var whole = sinks[0]
            for part in sinks.dropFirst() { whole.merge(part) }
            return whole.stats
        }
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(b)) }
        for piece in [nil, "Waltz"] {
            let one = summed(1, piece: piece)
            #expect(one.runs > 0 && !one.takes.isEmpty && !one.tempos.isEmpty)
            for parts in [2, 5] {
                let merged = summed(parts, piece: piece)
                #expect(merged.runs == one.runs && close(merged.totalSeconds, one.totalSeconds))
                #expect(merged.days.map(\.date) == one.days.map(\.date) && zip(merged.days, one.days).allSatisfy { close($0.seconds, $1.seconds) })
                for (mine, theirs) in [(merged.byPreset, one.byPreset), (merged.byPiece, one.byPiece)] {
                    #expect(Set(mine.map(\.name)) == Set(theirs.map(\.name)))
                    for total in mine {
                        let other = theirs.first { $0.name == total.name }
                        #expect(other?.runs == total.runs && close(total.seconds, other?.seconds ?? -1), "\(total.name)")
                    }
                }
                #expect(merged.tempos == one.tempos)
                #expect(merged.takes.map(\.bpm) == one.takes.map(\.bpm))
                for (mine, theirs) in zip(merged.takes, one.takes) {
                    #expect(mine.points.count == theirs.points.count && zip(mine.points, theirs.points).allSatisfy {
                        $0.date == $1.date && $0.takes == $1.takes && close($0.meanMs, $1.meanMs) && close($0.spreadMs, $1.spreadMs)
                    })
                }
            }
        }
    }

    @Test func civilDatesCountDaysAcrossMonthsLeapYearsAndCenturies() {
        #expect(CivilDate(year: 1970, month: 1, dayOfMonth: 1)?.day == 0)
        #expect(CivilDate(year: 2000, month: 3, dayOfMonth: 1)?.day == 11_017)
        #expect(CivilDate(year: 2024, month: 2, dayOfMonth: 29) != nil && CivilDate(year: 2100, month: 2, dayOfMonth: 29) == nil)
        // Every 997th day from 0001-01-01 to 9999-12-31, written and read back.
        for day in stride(from: Int64(-719_162), through: 2_932_896, by: 997) {
            let date = CivilDate(day: day)
            #expect(CivilDate(prefixOf: date.description) == date)
        }
        #expect(StatsReport.weekday(CivilDate(year: 2026, month: 11, dayOfMonth: 27)!) == "Fr")
    }

    @Test func theFiguresSumTheRunsThatCount() {
        let day = { (d: Int64) in CivilDate(year: 2026, month: 11, dayOfMonth: d)! }
        let entries = [
            PracticeLogEntry(date: day(1), playingSeconds: 600, preset: "ballad", bpmMax: 72),
            PracticeLogEntry(date: day(20), playingSeconds: 900, preset: "ballad", bpmMax: 76, takeMean: -4, takeSpread: 8),
            PracticeLogEntry(date: day(20), playingSeconds: 300, songs: ["Waltz", "Intro"], bpmMax: 120),
            PracticeLogEntry(date: day(27), playingSeconds: 120, preset: "ballad", bpmMax: 76, takeMean: -2, takeSpread: 4),
            PracticeLogEntry(date: day(27), playingSeconds: 60, preset: "ballad", bpmMax: 76, takeMean: 0, takeSpread: 2),
        ]
        let stats = PracticeStats(entries, today: day(27), weeks: 1)
        #expect(stats.totalSeconds == 1_980 && stats.runs == 5)
        #expect(stats.days.count == 7 && stats.days.first?.date == day(21) && stats.days.last?.seconds == 180)
        #expect(stats.byPreset == [.init(name: "ballad", seconds: 1_680, runs: 4), .init(name: "(no preset)", seconds: 300, runs: 1)])
        #expect(stats.byPiece.map(\.name) == ["ballad", "Intro", "Waltz"])
        #expect(stats.tempos.first { $0.piece == "ballad" }?.points.map(\.bpm) == [72, 76, 76])
        let takes = stats.takes.first { $0.bpm == 76 }?.points
        #expect(takes?.count == 2 && takes?.last?.meanMs == -1 && takes?.last?.spreadMs == 3 && takes?.last?.takes == 2)
        let since = PracticeStats(entries, today: day(27), since: day(20), piece: "Waltz")
        #expect(since.totalSeconds == 300 && since.runs == 1)
    }

    @Test(arguments: [40, 80, 200])
    func theChartsFitTheWidth(width: Int) throws {
        let file = directory.file("log.jsonl")
        _ = try run("/usr/bin/python3", [Self.tools.appendingPathComponent("practice_log.py").path, file, "400", "40", "2026-11-27", "3"])
        guard case .success(let log)? = PracticeLogFile.read(file) else { Issue.record("the log"); return }
        let stats = PracticeStats(log.entries, today: CivilDate(year: 2026, month: 11, dayOfMonth: 27)!)
        for unicode in [false, true] {
            let lines = StatsReport(stats: stats, skipped: log.skipped).charts(width: width, unicode: unicode).split(separator: "\n")
            #expect(lines.allSatisfy { $0.count <= width }, "\(lines.filter { $0.count > width })")
            #expect(lines.contains { $0.contains(unicode ? "█" : "#") })
        }
    }

    /// The binary's `--json` against Python's reading of the same log, on days libfaketime sets.
    /// Not under a sanitizer: libfaketime and its runtime call each other's clock_gettime for ever.
    @Test(.enabled(if: metronome_counting_available() != 0, "libfaketime hangs a sanitizer's runtime"), arguments: [("2026-11-27 12:00:00", 4, "-", "-"), ("2026-12-03 23:59:59", 2, "2026-11-01", "-"),
                      ("2026-12-04 00:00:01", 2, "-", "Waltz"), ("2026-12-30 12:00:00", 8, "-", "ballad")])
    func theBinarysFiguresAreThoseAnIndependentReaderFinds(now: String, weeks: Int, since: String, song: String) throws {
        let log = directory.file("log.jsonl")
        let generated = try run("/usr/bin/python3", [Self.tools.appendingPathComponent("practice_log.py").path, log, "3000", "60", "2026-11-27", "11"])
        #expect(generated.status == 0)
        var arguments = ["-f", "@" + now, metronomeBinary(), "stats", "--json", "--log", log, "--weeks", "\(weeks)"]
        if since != "-" { arguments += ["--since", since] }
        if song != "-" { arguments += ["--song", song] }
        let ours = try run("/usr/bin/faketime", arguments, environment: ["TZ": "UTC"])
        #expect(ours.status == 0, "\(ours.standardError)")
        let oracle = try run("/usr/bin/python3", [Self.tools.appendingPathComponent("stats_oracle.py").path, log,
                                                  String(now.prefix(10)), "\(weeks)", since, song])
        #expect(oracle.status == 0, "\(oracle.standardError)")
        let mine = try #require(try JSONSerialization.jsonObject(with: Data(ours.standardOutput.utf8)) as? [String: Any])
        let theirs = try #require(try JSONSerialization.jsonObject(with: Data(oracle.standardOutput.utf8)) as? [String: Any])
        func near(_ a: Any?, _ b: Any?) -> Bool {
            guard let x = (a as? NSNumber)?.doubleValue, let y = (b as? NSNumber)?.doubleValue else { return false }
            return abs(x - y) <= 0.001 + abs(y) * 1e-12
        }
        #expect(near(mine["totalSeconds"], theirs["totalSeconds"]) && near(mine["runs"], theirs["runs"]) && near(mine["skipped"], theirs["skipped"]))
        let days = mine["days"] as? [[String: Any]] ?? [], expectedDays = theirs["days"] as? [[String: Any]] ?? []
        #expect(days.count == weeks * 7 && days.count == expectedDays.count)
        for (day, expected) in zip(days, expectedDays) {
            #expect(day["date"] as? String == expected["date"] as? String && near(day["seconds"], expected["seconds"]), "\(day) \(expected)")
        }
        for key in ["presets", "pieces"] {
            let totals = mine[key] as? [[String: Any]] ?? [], expected = theirs[key] as? [String: [String: Any]] ?? [:]
            #expect(totals.count == expected.count, "\(key)")
            for total in totals {
                let name = total["name"] as? String ?? ""
                #expect(near(total["seconds"], expected[name]?["seconds"]) && near(total["runs"], expected[name]?["runs"]), "\(key) \(name)")
            }
        }
        let tempos = mine["tempos"] as? [[String: Any]] ?? [], expectedTempos = theirs["tempos"] as? [String: [String: Any]] ?? [:]
        #expect(tempos.count == expectedTempos.count)
        for line in tempos {
            let points = line["points"] as? [[String: Any]] ?? [], expected = expectedTempos[line["piece"] as? String ?? ""] ?? [:]
            #expect(points.count == expected.count && points.allSatisfy { near($0["bpm"], expected[$0["date"] as? String ?? ""]) })
        }
        let takes = mine["takes"] as? [[String: Any]] ?? [], expectedTakes = theirs["takes"] as? [String: [String: [String: Any]]] ?? [:]
        #expect(takes.count == expectedTakes.count)
        for line in takes {
            let bpm = (line["bpm"] as? NSNumber)?.doubleValue ?? -1
            let expected = expectedTakes.first { Double($0.key) == bpm }?.value ?? [:]
            let points = line["points"] as? [[String: Any]] ?? []
            #expect(points.count == expected.count)
            for point in points {
                let want = expected[point["date"] as? String ?? ""]
                #expect(near(point["meanMs"], want?["meanMs"]) && near(point["spreadMs"], want?["spreadMs"]) && near(point["takes"], want?["takes"]))
            }
        }
    }

    /// `metronome` has its subcommands in swift-argument-parser's manner: play, the default, and stats.
    @Test func playIsTheDefaultSubcommandAndStatsReadsNoConfig() throws {
        let help = try run(metronomeBinary(), ["help"], environment: ["COLUMNS": "100"])
        #expect(help.status == 0 && help.standardOutput.contains("play (default)") && help.standardOutput.contains("  stats "), "\(help.standardOutput)")
        for arguments in [["help", "stats"], ["stats", "--help"]] {
            let stats = try run(metronomeBinary(), arguments)
            #expect(stats.status == 0 && stats.standardOutput.contains("--since <date>") && !stats.standardOutput.contains("--bpm"), "\(arguments)")
        }
        // metronome play … is metronome …: the same click track, byte for byte.
        let played = directory.file("play.wav"), plain = directory.file("plain.wav")
        #expect(try run(metronomeBinary(), ["play", "--bpm", "133", "--bars", "2", "--output", played]).status == 0)
        #expect(try run(metronomeBinary(), ["--bpm", "133", "--bars", "2", "--output", plain]).status == 0)
        #expect(FileManager.default.contents(atPath: played) == FileManager.default.contents(atPath: plain))
        #expect(FileManager.default.contents(atPath: played)?.isEmpty == false)
        // A broken config file stops play (78) but not stats, which has no option a config sets.
        let config = directory.file("config")
        try FileManager.default.createDirectory(atPath: config + "/metronome", withIntermediateDirectories: true)
        try "bpm = [".write(toFile: config + "/metronome/config.toml", atomically: true, encoding: .utf8)
        let environment = ["XDG_CONFIG_HOME": config, "XDG_STATE_HOME": directory.path]
        #expect(try run(metronomeBinary(), ["play", "--print-config"], environment: environment).status == 78)
        #expect(try run(metronomeBinary(), ["--print-config"], environment: environment).status == 78)
        let stats = try run(metronomeBinary(), ["stats", "--json"], environment: environment)
        #expect(stats.status == 0 && stats.standardOutput.hasPrefix("{\"totalSeconds\":0,"))
        // A word that is no subcommand is play's stray argument: one line, 64.
        let typo = try run(metronomeBinary(), ["stat"])
        #expect(typo.status == 64 && typo.standardError == "metronome: Unexpected argument 'stat'\n", "\(typo.standardError)")
    }

    @Test func badOptionsAreOneLineAnd64AndAMissingLogIs66() throws {
        for (arguments, message) in [(["--since", "2026-13-01"], "--since '2026-13-01' is not a date"), (["--weeks", "0"], "--weeks 0 is out of range")] {
            let result = try run(metronomeBinary(), ["stats"] + arguments)
            #expect(result.status == 64 && result.standardError.hasPrefix("metronome: " + message), "\(result.standardError)")
        }
        let missing = try run(metronomeBinary(), ["stats", "--log", directory.file("none.jsonl")])
        #expect(missing.status == 66 && missing.standardError.split(separator: "\n").count == 1)
        // No log yet where it lives: nothing practised, said once, and the figures all zero.
        let empty = try run(metronomeBinary(), ["stats", "--json"], environment: ["XDG_STATE_HOME": directory.path])
        #expect(empty.status == 0 && empty.standardOutput.hasPrefix("{\"totalSeconds\":0,\"runs\":0,\"skipped\":0,"))
        #expect(empty.standardError.hasPrefix("metronome: no practice logged yet"))
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "libfaketime hangs a sanitizer's runtime"))
    func aPipeGetsATable() throws {
        let log = directory.file("log.jsonl")
        _ = try run("/usr/bin/python3", [Self.tools.appendingPathComponent("practice_log.py").path, log, "50", "10", "2026-11-27", "5"])
        let result = try run("/usr/bin/faketime", ["-f", "@2026-11-27 12:00:00", metronomeBinary(), "stats", "--log", log, "--weeks", "1"],
                             environment: ["TZ": "UTC"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.prefix(2) == ["# totals", "seconds\truns\tskipped"])
        #expect(lines.contains("# days") && lines.contains("# presets") && lines.contains("# takes"))
        #expect(lines.filter { $0.hasPrefix("2026-11-") && $0.split(separator: "\t").count == 2 }.count == 7)
    }
}
