import CAllocationCounter
import Foundation
import Testing
import MetronomeTestSupport

/// `metronome stats` on a real terminal (tmux) 80 and 200 columns wide: the
/// charts drawn to its width, the day libfaketime says.
@Suite struct StatsTerminalTests {
    static let generator = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/practice_log.py").path

    /// Not under a sanitizer: libfaketime and its runtime call each other's clock_gettime for ever.
    @Test(.enabled(if: metronome_counting_available() != 0, "libfaketime hangs a sanitizer's runtime"), arguments: [80, 200])
    func theChartsAreDrawnToTheTerminalsWidth(width: Int) throws {
        let directory = TemporaryDirectory()
        let log = directory.file("log.jsonl")
        // Few runs, so that every chart fits the pane (capture-pane reads what is on screen).
        _ = try run("/usr/bin/python3", [Self.generator, log, "12", "7", "2026-11-27", "2"])
        let pane = try TmuxPane(command: "TZ=UTC faketime -f '@2026-11-27 12:00:00' \(metronomeBinary()) stats --log \(log) --weeks 1",
                                width: width, height: 120)
        let outcome = try pane.outcome()
        #expect(outcome.status == 0)
        let screen = try pane.capture().split(separator: "\n").map { String($0) }
        let days = screen.filter { $0.range(of: #"^(Mo|Tu|We|Th|Fr|Sa|Su) 11-\d\d +\|"#, options: .regularExpression) != nil }
        #expect(days.count == 7, "\(screen)")
        #expect(days.last?.hasPrefix("Fr 11-27") == true)
        // Each day's row reaches the last column (its figure ends it), and its bar grows with the width.
        #expect(days.allSatisfy { $0.count == width }, "\(days.map(\.count))")
        let longest = days.map { $0.filter { $0 == "#" }.count }.max() ?? 0
        #expect(longest > width - 20 && longest < width)
        #expect(screen.contains("By preset") && screen.contains("Tempo reached, by song or preset"))
    }
}
