import Foundation
import Testing
@testable import MetronomeListening
import MetronomeTestSupport

/// The inspector's summary as text snapshots in `Snapshots/` (RECORD_SNAPSHOTS=1 writes them anew).
@Suite struct InspectorSummaryTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    func check(_ name: String, _ lines: [String]) throws {
        let text = lines.joined(separator: "\n") + "\n"
        let file = Self.folder.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        #expect(text == (try String(contentsOf: file, encoding: .utf8)), "snapshot \(name)")
    }

    /// 32 hits in 4/4 at 120 bpm (24 000 frames a beat), dragging a little more each bar,
    /// the downbeat early; offsets in whole frames, so every figure can be checked by hand.
    func take() -> [NoteMatch] {
        (0..<32).map { (index: Int) -> NoteMatch in
            let bar: Int = index / 4, beat: Int = index % 4
            let onBeat: Int = beat == 0 ? -6 : 3 + beat
            let wobble: Int = index % 3 == 0 ? -4 : 2
            let milliseconds: Int = onBeat + bar + wobble
            return NoteMatch(target: .init(frame: Int64(index) * 24_000, index: Int64(index), beatOfBar: beat),
                             offsetFrames: Int64(milliseconds) * 48, rate: .standard)
        }
    }

    @Test func theSummaryOfATake() throws {
        try check("inspector-summary", InspectorSummary.lines(TakeStatistics(matches: take(), misses: 3, extras: 1)))
    }

    @Test func aTakeWithNothingHeard() throws {
        let lines: [String] = InspectorSummary.lines(TakeStatistics(matches: [], misses: 16, extras: 0))
        let expected: [String] = ["hits: 0 of 16 clicks (16 missed, 0 extra)", "no notes heard"]
        #expect(lines == expected)
    }

    @Test func aCrowdedBinIsScaledToTheWidth() {
        let crowded = (0..<100).map { (index: Int) -> NoteMatch in
            let offset: Int64 = index < 80 ? 48 : -960
            return NoteMatch(target: .init(frame: Int64(index) * 24_000, index: Int64(index), beatOfBar: index % 4),
                             offsetFrames: offset, rate: .standard)
        }
        let lines = InspectorSummary.lines(TakeStatistics(matches: crowded, misses: 0, extras: 0))
        #expect(lines.contains("     0…5 |######################################## 80"))
        // 20 of 80 scaled to 40: 10.
        #expect(lines.contains(" -20…-15 |########## 20"))
    }

    @Test func figuresAreRoundedToATenth() {
        #expect(InspectorSummary.milliseconds(3.449) == "+3.4 ms")
        #expect(InspectorSummary.milliseconds(-0.05) == "-0.1 ms")
        #expect(InspectorSummary.milliseconds(0.04) == "0.0 ms")
        #expect(InspectorSummary.percent(0.875) == "88%")
    }
}
