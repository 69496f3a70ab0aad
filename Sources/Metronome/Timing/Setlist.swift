/// A show's songs, one a line of a text file:
///
///     name: TEMPO [METER]      # beats a minute, as --bpm, and a meter (4/4 if none)
///     name: FILE               # a klick tempo map or a MIDI file, relative to the setlist
///
/// `#` starts a comment; blank lines are skipped. A value whose first word
/// is a number (digits and a point) is a tempo; anything else names a file.
/// Names are unique (`--song NAME` picks one). A bad line is
/// `set.txt:4:9: message` at its line and column (in characters), exit 65.
public struct Setlist: Sendable, Equatable {
    public struct Song: Sendable, Equatable {
        public var name: String
        public var kind: Kind
        /// Where the song's value starts, for messages about its file.
        public var line: Int
        public var column: Int
    }

    public enum Kind: Sendable, Equatable {
        case tempo(Tempo, Meter)
        /// A path as written, relative to the setlist's directory unless absolute.
        case file(String)
    }

    public var songs: [Song]

    /// The index of the song called `name`, if one is.
    public func index(named name: String) -> Int? { songs.firstIndex { $0.name == name } }

    public init(parsing bytes: [UInt8], name: String) throws(TimingError) {
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = bytes.starts(with: byteOrderMark) ? Array(bytes.dropFirst(3)) : bytes
        guard let text = String(validating: body, as: UTF8.self) else {
            throw TimingError(.malformed, "\(name):1:1: not a text file (not UTF-8)")
        }
        var songs: [Song] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            func error(_ column: Int, _ message: String) -> TimingError {
                TimingError(.malformed, "\(name):\(number):\(column): \(message)")
            }
            let line = rawLine.last == "\r" ? rawLine.dropLast() : rawLine
            if let control = line.firstIndex(where: { $0.asciiValue.map { $0 < 0x20 && $0 != 0x09 } ?? false }) {
                throw error(line.distance(from: line.startIndex, to: control) + 1, "not a text file (a control character)")
            }
            let content = line.firstIndex(of: "#").map { line[..<$0] } ?? line
            guard content.contains(where: { $0 != " " && $0 != "\t" }) else { continue }
            func column(_ at: Substring.Index) -> Int { line.distance(from: line.startIndex, to: at) + 1 }
            guard let colon = content.firstIndex(of: ":") else {
                let first = content.firstIndex { $0 != " " && $0 != "\t" }!
                throw error(column(first), "a song is 'name: TEMPO [METER]' or 'name: FILE', e.g. 'Waltz: 90 3/4'")
            }
            let songName = String(content[..<colon]).trimmingCharacters(" \t")
            guard !songName.isEmpty else { throw error(column(colon), "the song has no name before its colon") }
            guard !songs.contains(where: { $0.name == songName }) else {
                let first = content.firstIndex { $0 != " " && $0 != "\t" }!
                throw error(column(first), "song '\(songName)' is listed twice: give each song its own name")
            }
            // The value's words, each with its column.
            var words: [(text: Substring, column: Int)] = []
            var start: Substring.Index?
            var position = content.index(after: colon)
            while position <= content.endIndex {
                let blank = position == content.endIndex || content[position] == " " || content[position] == "\t"
                if blank, let from = start {
                    words.append((content[from..<position], column(from)))
                    start = nil
                } else if !blank, start == nil {
                    start = position
                }
                if position == content.endIndex { break }
                position = content.index(after: position)
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
                kind = .file(String(content[first.text.startIndex...]).trimmingCharacters(" \t"))
            }
            songs.append(Song(name: songName, kind: kind, line: number, column: first.column))
        }
        guard !songs.isEmpty else {
            throw TimingError(.malformed, "\(name):\(lines.count):1: the setlist has no songs: write e.g. 'Waltz: 90 3/4' or 'Intro: intro.txt'")
        }
        self.songs = songs
    }
}

private extension String {
    /// The string without the characters of `set` at either end.
    func trimmingCharacters(_ set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
