/// A show's songs, one a line of a text file:
///
///     name: TEMPO [METER]      # beats a minute, as --bpm, and a meter (4/4 if none)
///     name: FILE               # a klick tempo map or a MIDI file, relative to the setlist
///
/// A `#` at the start of a line or after a space or tab starts a comment
/// (so `C# Blues: 120` is a song). A value whose first word is a number
/// (digits and a point) is a tempo; anything else names a file. Names are
/// unique: `--song NAME` picks one. A bad line is `set.txt:4:9: message`,
/// the column in characters, exit 65.
package struct Setlist: Sendable, Equatable {
    package struct Song: Sendable, Equatable {
        package var name: String
        package var kind: Kind
        /// Where the song's value starts, for messages about its file.
        package var line: Int
        package var column: Int
    }

    package enum Kind: Sendable, Equatable {
        case tempo(Tempo, Meter)
        /// A path as written, relative to the setlist's directory unless absolute.
        case file(String)
    }

    package var songs: [Song]

    /// The index of the song called `name`, if one is.
    package func index(named name: String) -> Int? { songs.firstIndex { $0.name == name } }

    package init(parsing bytes: [UInt8], name: String) throws(TimingError) {
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = bytes.starts(with: byteOrderMark) ? Array(bytes.dropFirst(3)) : bytes
        guard let text = String(validating: body, as: UTF8.self) else {
            throw TimingError(.malformed, "\(name):1:1: not a text file (not UTF-8)")
        }
        var songs: [Song] = []
        var names: Set<String> = []
        // "\r\n" is one Character in Swift: a line ends at either.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, line) in lines.enumerated() {
            let number = index + 1
            func error(_ column: Int, _ message: String) -> TimingError {
                TimingError(.malformed, "\(name):\(number):\(column): \(message)")
            }
            if let control = line.firstIndex(where: { $0.asciiValue.map { $0 < 0x20 && $0 != 0x09 } ?? false }) {
                throw error(line.distance(from: line.startIndex, to: control) + 1, "not a text file (a control character)")
            }
            let content = Self.commentStart(in: line).map { line[..<$0] } ?? line
            guard content.contains(where: { $0 != " " && $0 != "\t" }) else { continue }
            func column(_ at: Substring.Index) -> Int { line.distance(from: line.startIndex, to: at) + 1 }
            guard let colon = content.firstIndex(of: ":") else {
                let first = content.firstIndex { $0 != " " && $0 != "\t" }!
                throw error(column(first), "a song is 'name: TEMPO [METER]' or 'name: FILE', e.g. 'Waltz: 90 3/4'")
            }
            let songName = content[..<colon].trimmingCharacters(" \t")
            guard !songName.isEmpty else { throw error(column(colon), "the song has no name before its colon") }
            guard names.insert(songName).inserted else {
                let first = content.firstIndex { $0 != " " && $0 != "\t" }!
                throw error(column(first), "song '\(songName)' is listed twice: give each song its own name")
            }
            // The value's words, each with its column (counted as the line is walked: once, not from its start each word).
            var words: [(text: Substring, column: Int)] = []
            var start: (index: Substring.Index, column: Int)?
            var position = content.index(after: colon)
            var here = column(position)
            while position <= content.endIndex {
                let blank = position == content.endIndex || content[position] == " " || content[position] == "\t"
                if blank, let from = start {
                    words.append((content[from.index..<position], from.column))
                    start = nil
                } else if !blank, start == nil {
                    start = (position, here)
                }
                if position == content.endIndex { break }
                position = content.index(after: position)
                here += 1
            }
            guard let first = words.first else {
                throw error(column(colon) + 1, "song '\(songName)' has no tempo or file after its colon, e.g. '\(songName): 120 4/4'")
            }
            let kind: Kind
            if first.text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
                let tempo: Tempo
                do { tempo = try Tempo(parsing: String(first.text)) } catch { throw TimingError(.malformed, "\(name):\(number):\(first.column): \(error.message)") }
                var meter = Meter.common
                if words.count > 1 {
                    do { meter = try Meter(parsing: String(words[1].text)) } catch {
                        throw TimingError(.malformed, "\(name):\(number):\(words[1].column): \(error.message)")
                    }
                }
                if words.count > 2 {
                    throw error(words[2].column, "unexpected '\(words[2].text)' after the meter: a song is 'name: TEMPO [METER]'")
                }
                kind = .tempo(tempo, meter)
            } else {
                // A file name may hold spaces: everything from its first word to the last.
                kind = .file(content[first.text.startIndex...].trimmingCharacters(" \t"))
            }
            songs.append(Song(name: songName, kind: kind, line: number, column: first.column))
        }
        guard !songs.isEmpty else {
            throw TimingError(.malformed, "\(name):\(lines.count):1: the setlist has no songs: write e.g. 'Waltz: 90 3/4' or 'Intro: intro.txt'")
        }
        self.songs = songs
    }

    /// Where a comment starts: a `#` that begins the line or follows a space or tab.
    static func commentStart(in line: Substring) -> Substring.Index? {
        var previous: Character = " "
        for index in line.indices {
            if line[index] == "#", previous == " " || previous == "\t" { return index }
            previous = line[index]
        }
        return nil
    }
}

private extension StringProtocol {
    /// The text without spaces and tabs at either end.
    func trimmingCharacters(_ set: String) -> String {
        guard let first = firstIndex(where: { !set.contains($0) }), let last = lastIndex(where: { !set.contains($0) }) else { return "" }
        return String(self[first...last])
    }
}
