import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomeSession
import MetronomeTestSupport

/// The text of a tempo map as editors write it: LF, CRLF (Windows), a UTF-8
/// byte-order mark, CR alone (old Mac).
@Suite struct TempoMapTextTests {
    private func parse(_ bytes: [UInt8]) throws(TimingError) -> TempoMap {
        try TempoMap(parsing: bytes, name: "map.txt")
    }

    private func failure(_ text: String) -> TimingError? {
        do {
            _ = try parse(Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    private let unix = "# a song\nintro: 2 120\n\nverse: 4 3/4 90-100 X.x 0.5\n1 4/4 100,110,120,130\n"

    @Test func crlfLinesAndAByteOrderMarkReadAsTheSameMap() throws {
        let expected = try parse(Array(unix.utf8))
        let windows = unix.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(Array(windows.utf8).filter { $0 == 0x0D }.count == 5)
        #expect(try parse(Array(windows.utf8)) == expected)
        #expect(try parse([0xEF, 0xBB, 0xBF] + Array(windows.utf8)) == expected)
        #expect(try parse([0xEF, 0xBB, 0xBF] + Array(unix.utf8)) == expected)
        // The mark is not part of the first word: the label is still 'intro'.
        let marked = try parse([0xEF, 0xBB, 0xBF] + Array("intro: 2 120\r\n".utf8))
        #expect(marked.entries.map(\.label) == ["intro"])
        // A last line without its line end.
        #expect(try parse(Array("2 120\r\n4 3/4 90".utf8)).entries.map(\.bars) == [2, 4])
    }

    @Test(arguments: [
        // Columns count characters from the first after the mark, lines count CRLF as one end.
        ("\u{FEFF}4 0\r\n", "map.txt:1:3: tempo '0' is zero"),
        ("\u{FEFF}4 120\r\n2 3/4 0\r\n", "map.txt:2:7: tempo '0' is zero"),
        ("4 120\r\n\r\n2 120 X.x.x\r\n", "map.txt:3:7: pattern 'X.x.x' has 5 beats"),
        ("4 120\r\nverse 8 120\r\n", "map.txt:2:1: 'verse' is not a number of bars"),
        ("\u{FEFF}# only comments\r\n\r\n", "map.txt:3:1: the tempo map has no entries"),
        ("4 120 X.x. 0.5 extra\r\n", "map.txt:1:16: unexpected 'extra'"),
        // A control character's column counts é as one character, as the parser's columns do.
        ("4 120\r\né\u{1}", "map.txt:2:2: not a text file (byte 0x1)"),
    ])
    func errorsInCRLFMapsNameTheirLineAndColumn(text: String, message: String) {
        let error = failure(text)
        #expect(error?.kind == .malformed)
        #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error))")
    }

    @Test func aPerBeatListReadsEachTempoAsALoneTempoIsRead() throws {
        let spellings = ["120", "092.5", "5.", "100.125", "1000", "1000.000", "1.2340", "60.0", "1", "999.999"]
        let map = try parseMap("5 2/4 " + spellings.joined(separator: ","))
        #expect(map.entries[0].tempo == .perBeat(try spellings.map { try Tempo(parsing: $0) }))
        // A tempo the list cannot take: the message a lone tempo gets, at its own column.
        for bad in ["0.5", "1001", "-3", "1.2345", "1e3", "12a", "1000.001", "0"] {
            let alone = message { _ = try parseMap("1 \(bad)") }
            let inList = message { _ = try parseMap("1 120,\(bad),130,140") }
            #expect(alone?.hasPrefix("map.txt:1:3: ") == true && inList == alone.map { "map.txt:1:7: " + $0.dropFirst(13) },
                    "\(bad): \(inList ?? "nil")")
        }
        #expect(message { _ = try parseMap("1 120,,130,140") }?.hasPrefix("map.txt:1:7: '' is not a tempo") == true)
        // A count far beyond the list (32 million beats, two tempos): the count is the message.
        #expect(message { _ = try parseMap("1000000 32/4 90,100") }?.hasPrefix("map.txt:1:14: 2 tempos for 32000000 beats") == true)
        // A list before a comment that is not ASCII, and columns that count characters, not bytes.
        #expect(try parseMap("1 120,130,140,150 # tempo ♩ = 120").entries[0].tempo == .perBeat(try ["120", "130", "140", "150"].map { try Tempo(parsing: $0) }))
        #expect(message { _ = try parseMap("é: 1 120,0,130,140") }?.hasPrefix("map.txt:1:10: tempo '0' is zero") == true)
    }

    @Test func aLineThatIsNotUTF8IsNamedBeforeALaterByteThatIsNotText() {
        // Line 2 is not UTF-8, line 3 holds a control character: line 2 is what the reader hears of.
        let bytes: [UInt8] = Array("4 120\n".utf8) + [0x31, 0x20, 0xC3, 0x28, 0x0A] + Array("1 90\u{1}\n".utf8)
        #expect(message { _ = try TempoMap(parsing: bytes, name: "map.txt") } == "map.txt:2:1: not a text file (not UTF-8)")
        // In one line, the control character comes first: the line is never read as text.
        let same: [UInt8] = Array("4 120\n".utf8) + [0xC3, 0x28, 0x01, 0x0A]
        #expect(message { _ = try TempoMap(parsing: same, name: "map.txt") } == "map.txt:2:3: not a text file (byte 0x1)")
    }

    private func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch let error as SessionError { return error.message } catch { return "\(error)" }
        return nil
    }

    @Test func aCROnlyMapIsRefusedWithAMessageThatSaysSo() {
        let error = failure("intro: 2 120\r4 3/4 90\r")
        #expect(error == TimingError(.malformed, "map.txt:1:1: lines end in CR only (old Mac text): save with LF or CRLF line endings"))
        // A lone CR inside an LF file: where it is.
        let stray = failure("2 120\n4 9\r0\n")
        #expect(stray == TimingError(.malformed, "map.txt:2:4: a CR that ends no line: save with LF or CRLF line endings"))
    }

    @Test func theBinaryRendersAWindowsMapAsItsUnixTwinAndRefusesACROnlyOne() throws {
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        func render(_ bytes: [UInt8], _ name: String) throws -> RunResult {
            let map = directory.file(name + ".txt")
            try Data(bytes).write(to: URL(fileURLWithPath: map))
            return try run(metronomeBinary(), ["--tempo-map", map, "--output", directory.file(name + ".wav"),
                                               "--beat-sound", beat, "--bell-sound", bell])
        }
        let unixRun = try render(Array(unix.utf8), "unix")
        let windowsRun = try render([0xEF, 0xBB, 0xBF] + Array(unix.replacingOccurrences(of: "\n", with: "\r\n").utf8), "windows")
        #expect(unixRun.status == 0 && windowsRun.status == 0, "\(windowsRun.standardError)")
        let unixClicks = onsets(try readSoundFile(directory.file("unix.wav")).samples)
        #expect(unixClicks.count == 2 * 4 + 4 * 3 - 4 + 4)
        #expect(onsets(try readSoundFile(directory.file("windows.wav")).samples).elementsEqual(unixClicks) { $0 == $1 })

        let mac = try render(Array(unix.replacingOccurrences(of: "\n", with: "\r").utf8), "mac")
        #expect(mac.status == 65)
        #expect(mac.standardError == "metronome: \(directory.file("mac.txt")):1:1: lines end in CR only (old Mac text): save with LF or CRLF line endings\n")
        #expect(!directory.contents().contains("mac.wav"))
    }
}
