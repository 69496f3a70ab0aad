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
