import Glibc

/// A tempo map in klick's format, so files written for klick work unchanged:
///
///     [label:] bars [beats/denom] tempo[-tempo2 | ,t2,t3,...] [pattern] [volume]
///
/// one entry a line, `#` starting a comment, blank lines ignored. Tempos count
/// quarter notes a minute whatever the meter, as klick counts them; `t1-t2`
/// changes the tempo linearly with beat position across the entry; a comma
/// list gives every beat its own tempo.
package struct TempoMap: Sendable, Equatable {
    package var entries: [Entry]

    package struct Entry: Sendable, Equatable {
        package var label: String?
        package var bars: Int64
        package var meter: Meter
        package var tempo: EntryTempo
        /// nil: the bell on beat 1, as everywhere else.
        package var pattern: BeatPattern?
        /// The level of the entry's clicks; 1 is full.
        package var volume: Float

        package var beats: Int64 { bars * Int64(meter.beatsPerBar) }

        /// At most how long the entry lasts: every beat at its slowest tempo.
        var longestSeconds: Double {
            if case .exact(let runs) = tempo { return runs.reduce(0) { $0 + Double($1.count) * $1.seconds } }
            let slowest: Tempo = switch tempo {
            case .constant(let tempo): tempo
            case .ramp(let from, let to): min(from, to)
            case .perBeat(let tempos): tempos.min() ?? Tempo(bpm: 1)!
            case .exact(let runs): runs.map(\.tempo).min() ?? Tempo(bpm: 1)!
            }
            return Double(beats) * 240 / Double(meter.noteValue) / (Double(slowest.millibeatsPerMinute) / 1000)
        }
    }

    /// An entry's tempo, in quarter notes a minute.
    package enum EntryTempo: Sendable, Equatable {
        case constant(Tempo)
        /// From the first tempo at the entry's first beat to the second at its end.
        case ramp(Tempo, Tempo)
        /// One tempo for each beat of the entry.
        case perBeat([Tempo])
        /// Every beat's exact length, in runs of equal beats (a MIDI file's tempo map).
        case exact([ExactBeats])
    }

    /// The longest map: a week.
    package static let longestSeconds: Double = 7 * 24 * 3600

    /// The largest volume an entry may ask for.
    package static let loudest: Float = 10

    /// The meter the bars go on in after a map that ends, where it is not its
    /// last entry's: a MIDI file whose tracks end inside a bar plays that bar's
    /// beats, then bars of the time signature in force (nil: the last entry's).
    package var meterAfterEnd: Meter?

    package init(entries: [Entry], meterAfterEnd: Meter? = nil) {
        self.entries = entries
        self.meterAfterEnd = meterAfterEnd
    }

    /// The index of the entry labelled `label`; nil if none is.
    package func entry(labelled label: String) -> Int? {
        entries.firstIndex { $0.label == label }
    }

    /// Parses the bytes of a map; `name` starts every error message. Lines
    /// end in LF or CRLF (as Windows writes them); a UTF-8 byte-order mark
    /// at the start is skipped.
    package init(parsing bytes: [UInt8], name: String) throws(TimingError) {
        let lines = try Self.lines(of: bytes, name: name)
        var entries: [Entry] = []
        var labels: Set<String> = []
        for (index, content) in lines.enumerated() {
            var parser = EntryParser(line: content[...], number: index + 1, name: name)
            guard let entry = try parser.parse() else { continue }
            if let label = entry.label {
                guard labels.insert(label).inserted else {
                    throw TimingError(.malformed, "\(name):\(index + 1):1: label '\(label)' is used twice")
                }
            }
            entries.append(entry)
        }
        // Long enough for any rehearsal, short enough that no frame number can overflow.
        var seconds = 0.0
        for (index, entry) in entries.enumerated() {
            seconds += entry.longestSeconds
            guard seconds <= TempoMap.longestSeconds else {
                throw TimingError(.malformed, "\(name):\(index + 1):1: the map up to here lasts more than a week")
            }
        }
        guard !entries.isEmpty else {
            throw TimingError(.malformed, "\(name):\(lines.count):1: the tempo map has no entries: write e.g. '8 120' for 8 bars at 120")
        }
        self.entries = entries
    }

    /// The text of each line, without its LF or CRLF; a malformed file is
    /// exit 65 at the line and column (in characters) where it goes wrong.
    private static func lines(of bytes: [UInt8], name: String) throws(TimingError) -> [String] {
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let first = bytes.starts(with: byteOrderMark) ? byteOrderMark.count : 0
        // Where each line lies, up to the first byte that is not text (and what is wrong there).
        let (spans, failure) = bytes.withUnsafeBufferPointer { text -> ([Range<Int>], String?) in
            var spans: [Range<Int>] = []
            var start = first
            // A column is a character: UTF-8 continuation bytes do not start one.
            func column(_ index: Int) -> Int { 1 + text[start..<index].count { $0 & 0xC0 != 0x80 } }
            for index in first..<text.count {
                let byte = text[index]
                // Most bytes: text that is not a line's end.
                if byte >= 0x20, byte != 0x7F { continue }
                if byte == 0x0A {
                    let end = index > start && text[index - 1] == 0x0D ? index - 1 : index
                    spans.append(start..<end)
                    start = index + 1
                    continue
                }
                if byte == 0x0D, index + 1 == text.count || text[index + 1] != 0x0A {
                    guard text[first...].contains(0x0A) else {
                        return (spans, "\(name):1:1: lines end in CR only (old Mac text): save with LF or CRLF line endings")
                    }
                    return (spans, "\(name):\(spans.count + 1):\(column(index)): a CR that ends no line: save with LF or CRLF line endings")
                }
                // Text: no NUL and no control characters but tab and the line ends.
                if byte == 0 || (byte < 0x20 && byte != 0x09 && byte != 0x0D) || byte == 0x7F {
                    return (spans, "\(name):\(spans.count + 1):\(column(index)): not a text file (byte 0x\(String(byte, radix: 16)))")
                }
            }
            spans.append(start..<text.count)
            return (spans, nil)
        }
        // The lines before the one that goes wrong are checked first, as they come.
        var lines: [String] = []
        for span in spans { lines.append(try line(bytes[span], number: lines.count + 1, name: name)) }
        if let failure { throw TimingError(.malformed, failure) }
        return lines
    }

    private static func line(_ bytes: ArraySlice<UInt8>, number: Int, name: String) throws(TimingError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw TimingError(.malformed, "\(name):\(number):1: not a text file (not UTF-8)")
        }
        return text
    }
}

/// Parses one line of a tempo map into an entry, or nothing for a blank or comment line.
private struct EntryParser {
    let name: String
    let number: Int
    /// The line's words, each with its column (from 1).
    var words: [(text: Substring, column: Int)]

    init(line: Substring, number: Int, name: String) {
        self.name = name
        self.number = number
        // ASCII (a long per-beat list): a byte is a column, and the words are found in the bytes.
        var bytes = line
        let (ascii, spans) = bytes.withUTF8 { buffer in
            let end = buffer.firstIndex(of: UInt8(ascii: "#")) ?? buffer.count
            var spans: [Range<Int>] = []
            // A mark after the `#` would make one character of them.
            if end + 1 < buffer.count, buffer[end + 1] >= 0x80 { return (false, spans) }
            var start: Int?
            for index in 0...end {
                let byte = index < end ? buffer[index] : UInt8(ascii: " ")
                // Most bytes: inside a word.
                if byte > 0x20, byte < 0x80, start != nil { continue }
                if byte >= 0x80 { return (false, spans) }
                let blank = byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
                if blank, let from = start {
                    spans.append(from..<index)
                    start = nil
                } else if !blank, start == nil {
                    start = index
                }
            }
            return (true, spans)
        }
        let utf8 = line.utf8
        func index(_ offset: Int) -> Substring.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
        words = ascii ? spans.map { (line[index($0.lowerBound)..<index($0.upperBound)], $0.lowerBound + 1) } : []
        if ascii { return }
        // Else by characters.
        let content = line.firstIndex(of: "#").map { line[..<$0] } ?? line
        var column = 1
        var start: (Substring.Index, Int)?
        for index in content.indices {
            let blank = content[index] == " " || content[index] == "\t" || content[index] == "\r"
            if blank, let (from, at) = start {
                words.append((content[from..<index], at))
                start = nil
            } else if !blank, start == nil {
                start = (index, column)
            }
            column += 1
        }
        if let (from, at) = start { words.append((content[from...], at)) }
    }

    private func error(_ column: Int, _ message: String) -> TimingError {
        TimingError(.malformed, "\(name):\(number):\(column): \(message)")
    }

    mutating func parse() throws(TimingError) -> TempoMap.Entry? {
        guard !words.isEmpty else { return nil }
        var next = 0
        var label: String?
        if words[0].text.hasSuffix(":") {
            let name = words[0].text.dropLast()
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }) else {
                throw error(words[0].column, "label '\(words[0].text)' is not a name: use letters, digits, _ - or . before the colon")
            }
            label = String(name)
            next = 1
        }
        guard next < words.count else { throw error(words[0].column + words[0].text.count, "an entry needs bars and a tempo after the label, e.g. 'intro: 8 120'") }

        let (barsText, barsColumn) = words[next]
        guard let bars = Int64(barsText) else {
            throw error(barsColumn, "'\(barsText)' is not a number of bars: an entry is '[label:] bars [meter] tempo [pattern] [volume]'")
        }
        guard bars >= 1, bars <= 1_000_000 else { throw error(barsColumn, "bars must be from 1 to 1000000, not \(bars)") }
        next += 1

        var meter = Meter.common
        if next < words.count, Self.contains(UInt8(ascii: "/"), words[next].text) {
            do {
                meter = try Meter(parsing: String(words[next].text))
            } catch {
                throw self.error(words[next].column, error.message)
            }
            next += 1
        }

        guard next < words.count else {
            let last = words[next - 1]
            throw error(last.column + last.text.count, "a tempo is missing: give quarter notes a minute, e.g. 120")
        }
        let (tempoText, tempoColumn) = words[next]
        let tempo = try parseTempo(tempoText, column: tempoColumn, beats: bars * Int64(meter.beatsPerBar))
        next += 1

        var pattern: BeatPattern?
        if next < words.count, words[next].text.allSatisfy({ $0 == "X" || $0 == "x" || $0 == "." }), words[next].text != "." {
            do {
                pattern = try BeatPattern(parsing: String(words[next].text), beatsPerBar: meter.beatsPerBar)
            } catch {
                throw self.error(words[next].column, error.message)
            }
            next += 1
        }

        var volume: Float = 1
        if next < words.count {
            let (text, column) = words[next]
            guard let micro = ExactDecimal.parse(String(text), places: 6, in: 0...Int64(TempoMap.loudest) * 1_000_000) else {
                throw error(column, "'\(text)' is neither a pattern of X, x and . nor a volume from 0 to \(Int(TempoMap.loudest))")
            }
            volume = Float(micro) / 1_000_000
            next += 1
        }
        if next < words.count {
            throw error(words[next].column, "unexpected '\(words[next].text)' after the entry: an entry is '[label:] bars [meter] tempo [pattern] [volume]'")
        }
        return TempoMap.Entry(label: label, bars: bars, meter: meter, tempo: tempo, pattern: pattern, volume: volume)
    }

    private func parseTempo(_ text: Substring, column: Int, beats: Int64) throws(TimingError) -> TempoMap.EntryTempo {
        if Self.contains(UInt8(ascii: ","), text) {
            if let tempos = Self.plainTempos(text, count: beats) { return .perBeat(tempos) }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard Int64(parts.count) == beats else {
                throw error(column, "\(parts.count) tempos for \(beats) beats: a comma list gives one tempo for each beat of the entry")
            }
            var tempos: [Tempo] = []
            var offset = 0
            for part in parts {
                tempos.append(try parseOne(part, column: column + offset))
                offset += part.count + 1
            }
            return .perBeat(tempos)
        }
        if let dash = text.dropFirst().firstIndex(of: "-") {
            let first = try parseOne(text[..<dash], column: column)
            let second = try parseOne(text[text.index(after: dash)...], column: column + text.distance(from: text.startIndex, to: dash) + 1)
            return first == second ? .constant(first) : .ramp(first, second)
        }
        return .constant(try parseOne(text, column: column))
    }

    /// Whether `text` holds `byte`, looked for in its contiguous bytes (a word may be a million tempos long).
    private static func contains(_ byte: UInt8, _ text: Substring) -> Bool {
        var text = text
        return text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return false }
            return memchr(base, Int32(byte), buffer.count) != nil
        }
    }

    /// A list of `count` tempos each written plainly, `[0-9]+(.[0-9]{0,3})?`
    /// within 1 to 1000, read straight from its bytes (a list of a million
    /// beats); nil for anything else, which `parseOne` reads or explains.
    private static func plainTempos(_ text: Substring, count: Int64) -> [Tempo]? {
        var text = text
        return text.withUTF8 { buffer -> [Tempo]? in
            // The thousandths a tempo with `places` digits after its point is multiplied by.
            let scale: [Int64] = [1000, 1000, 100, 10, 1]
            var complete = true
            // No more than the text can hold (a tempo and a comma are two bytes): a wrong count reserves nothing huge.
            let tempos = [Tempo](unsafeUninitializedCapacity: min(Int(count), buffer.count / 2 + 1)) { tempos, made in
                var milli: Int64 = 0, places = -1, length = 0
                for index in 0...buffer.count {
                    let byte = index < buffer.count ? buffer[index] : UInt8(ascii: ",")
                    let digit = byte &- UInt8(ascii: "0")
                    if digit < 10 {
                        guard places < 3, milli < 1 << 40 else { complete = false; return }
                        milli = milli * 10 + Int64(digit)
                        if places >= 0 { places += 1 }
                        length += 1
                    } else if byte == UInt8(ascii: ",") {
                        guard length > 0, !(places == 0 && length == 1), made < tempos.count,
                              let tempo = Tempo(millibeatsPerMinute: milli * scale[places + 1]) else { complete = false; return }
                        tempos.initializeElement(at: made, to: tempo)
                        made += 1
                        (milli, places, length) = (0, -1, 0)
                    } else if byte == UInt8(ascii: "."), places < 0 {
                        places = 0
                        length += 1
                    } else {
                        complete = false
                        return
                    }
                }
            }
            return complete && tempos.count == count ? tempos : nil
        }
    }

    private func parseOne(_ text: Substring, column: Int) throws(TimingError) -> Tempo {
        if text.hasPrefix("-") {
            throw error(column, "tempo '\(text)' is negative: give quarter notes a minute above 0, e.g. 120")
        }
        switch ExactDecimal.isMore(text, than: Tempo.range.upperBound / 1000) {
        case nil: throw error(column, "'\(text)' is not a tempo: give quarter notes a minute, e.g. 120 or 92.5")
        case true: throw error(column, "tempo '\(text)' is out of range: use 1 to 1000 quarter notes a minute")
        case false: break
        }
        guard let decimal = ExactDecimal(text), let milli = decimal.scaled(toPlaces: 3) else {
            throw error(column, "tempo '\(text)' has more than 3 decimal places")
        }
        guard milli > 0 else { throw error(column, "tempo '\(text)' is zero: give quarter notes a minute above 0, e.g. 120") }
        guard let tempo = Tempo(millibeatsPerMinute: milli) else {
            throw error(column, "tempo '\(text)' is out of range: use 1 to 1000 quarter notes a minute")
        }
        return tempo
    }
}
