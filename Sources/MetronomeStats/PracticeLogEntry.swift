import Glibc

/// One line of the practice log as `stats` reads it: what it sums and charts.
package struct PracticeLogEntry: Sendable, Equatable {
    /// The day the run started, as its own clock wrote it (`2026-11-28`), and that day's number.
    package let date: CivilDate
    package let playingSeconds: Double
    package let preset: String?
    package let songs: [String]
    package let bpmMax: Double?
    /// With `--inspect`: the take's mean offset and spread, in ms.
    package let takeMean: Double?
    package let takeSpread: Double?

    package init(date: CivilDate, playingSeconds: Double, preset: String? = nil, songs: [String] = [], bpmMax: Double? = nil,
                 takeMean: Double? = nil, takeSpread: Double? = nil) {
        self.date = date
        self.playingSeconds = playingSeconds
        self.preset = preset
        self.songs = songs
        self.bpmMax = bpmMax
        self.takeMean = takeMean
        self.takeSpread = takeSpread
    }

    /// The line read, or nil for one that is not a practice log line (corrupt, cut, foreign):
    /// an object with at least `start` (a date and time) and `playingSeconds` (a number, 0 or more).
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> PracticeLogEntry? {
        var line = PracticeLogLine()
        guard line.read(bytes) else { return nil }
        return line.entry
    }
}

/// One line of the log read without allocating (once its buffers have grown): its
/// figures, and its names' UTF-8, escapes decoded, in a buffer kept from line to line.
struct PracticeLogLine {
    var date = CivilDate(day: 0)
    var playingSeconds = 0.0
    var bpmMax: Double?, takeMean: Double?, takeSpread: Double?
    /// The preset's and the songs' UTF-8, one after the other.
    var text: [UInt8] = []
    var preset: Range<Int>?
    var songs: [Range<Int>] = []

    /// Reads `bytes`; false if they are not a practice log line, and then the fields mean nothing.
    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        text.removeAll(keepingCapacity: true)
        songs.removeAll(keepingCapacity: true)
        preset = nil
        bpmMax = nil
        takeMean = nil
        takeSpread = nil
        var scanner = JSONScanner(bytes)
        guard scanner.take(UInt8(ascii: "{")) else { return false }
        var date: CivilDate?, seconds: Double?
        if !scanner.take(UInt8(ascii: "}")) {
            repeat {
                guard let key = Field(&scanner), scanner.take(UInt8(ascii: ":")) else { return false }
                switch key {
                case .start:
                    if let raw = scanner.plainString() {
                        date = CivilDate(prefixOf: raw)
                    } else {
                        guard let text = scanner.string() else { return false }
                        date = CivilDate(prefixOf: text)
                    }
                case .playingSeconds:
                    guard let value = scanner.number() else { return false }
                    seconds = value
                case .preset:
                    guard let range = scanner.string(into: &text) else { return false }
                    preset = range
                case .songs:
                    guard scanner.take(UInt8(ascii: "[")) else { return false }
                    songs.removeAll(keepingCapacity: true)
                    if !scanner.take(UInt8(ascii: "]")) {
                        repeat {
                            guard let song = scanner.string(into: &text) else { return false }
                            songs.append(song)
                        } while scanner.take(UInt8(ascii: ","))
                        guard scanner.take(UInt8(ascii: "]")) else { return false }
                    }
                case .bpmMax:
                    guard let value = scanner.number() else { return false }
                    bpmMax = value.isFinite ? value : nil
                case .take:
                    guard scanner.take(UInt8(ascii: "{")) else { return false }
                    if !scanner.take(UInt8(ascii: "}")) {
                        repeat {
                            guard let field = Field(&scanner), scanner.take(UInt8(ascii: ":")) else { return false }
                            switch field {
                            case .meanMs: takeMean = scanner.number().flatMap { $0.isFinite ? $0 : nil }
                            case .spreadMs: takeSpread = scanner.number().flatMap { $0.isFinite ? $0 : nil }
                            default: guard scanner.skipValue() else { return false }
                            }
                        } while scanner.take(UInt8(ascii: ","))
                        guard scanner.take(UInt8(ascii: "}")) else { return false }
                    }
                default:
                    guard scanner.skipValue() else { return false }
                }
            } while scanner.take(UInt8(ascii: ","))
            guard scanner.take(UInt8(ascii: "}")) else { return false }
        }
        scanner.skipSpaces()
        guard scanner.atEnd, let date, let seconds, seconds >= 0, seconds.isFinite, seconds < 1e9 else { return false }
        self.date = date
        playingSeconds = seconds
        return true
    }

    /// The line as an entry, its names made Strings.
    var entry: PracticeLogEntry {
        PracticeLogEntry(date: date, playingSeconds: playingSeconds, preset: preset.map(name), songs: songs.map(name),
                         bpmMax: bpmMax, takeMean: takeMean, takeSpread: takeSpread)
    }

    func name(_ range: Range<Int>) -> String { String(decoding: text[range], as: UTF8.self) }

    /// The line an entry would have been read from.
    init(_ entry: PracticeLogEntry) {
        date = entry.date
        playingSeconds = entry.playingSeconds
        bpmMax = entry.bpmMax
        takeMean = entry.takeMean
        takeSpread = entry.takeSpread
        if let name = entry.preset { preset = add(name) }
        songs = entry.songs.map { add($0) }
    }

    init() {}

    private mutating func add(_ name: String) -> Range<Int> {
        let first = text.count
        text.append(contentsOf: name.utf8)
        return first..<text.count
    }
}

/// The keys of a log line that `stats` reads, matched on their bytes (a String for one with an escape).
enum Field {
    case start, playingSeconds, preset, songs, bpmMax, take, meanMs, spreadMs, other

    /// The key next in `scanner`; nil if there is none.
    init?(_ scanner: inout JSONScanner) {
        if let raw = scanner.plainString() {
            self = Self(raw)
        } else {
            var utf8: [UInt8] = []
            guard scanner.string(into: &utf8) != nil else { return nil }
            self = utf8.withUnsafeBufferPointer { Self($0) }
        }
    }

    /// The key `raw` names: its bytes read as little-endian words and compared with the names'.
    init(_ raw: UnsafeBufferPointer<UInt8>) {
        guard let base = raw.baseAddress, [4, 5, 6, 8, 14].contains(raw.count) else { self = .other; return }
        let bytes = UnsafeRawPointer(base)
        /// The key's bytes from `from` on, as many as fit `Word`, read little-endian (never past its end).
        func word<Word: FixedWidthInteger & UnsignedInteger>(_ from: Int, _: Word.Type) -> UInt64 {
            UInt64(Word(littleEndian: bytes.loadUnaligned(fromByteOffset: from, as: Word.self)))
        }
        let first: UInt64
        switch raw.count {
        case 4: first = word(0, UInt32.self)
        case 5: first = word(0, UInt32.self) | word(4, UInt8.self) << 32
        case 6: first = word(0, UInt32.self) | word(4, UInt16.self) << 32
        default: first = word(0, UInt64.self)
        }
        switch (raw.count, first) {
        case (5, 0x74_7261_7473): self = .start
        case (5, 0x73_676E_6F73): self = .songs
        case (6, 0x7465_7365_7270): self = .preset
        case (6, 0x7861_4D6D_7062): self = .bpmMax
        case (6, 0x734D_6E61_656D): self = .meanMs
        case (4, 0x656B_6174): self = .take
        case (8, 0x734D_6461_6572_7073): self = .spreadMs
        case (14, 0x5367_6E69_7961_6C70) where word(8, UInt32.self) | word(12, UInt16.self) << 32 == 0x7364_6E6F_6365: self = .playingSeconds
        default: self = .other
        }
    }
}

/// A day of the proleptic Gregorian calendar, and its number (days from 1970-01-01).
package struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let day: Int64

    package init(day: Int64) { self.day = day }

    /// `YYYY-MM-DD`, checked (2026-02-30 is no day).
    package init?(year: Int64, month: Int64, dayOfMonth: Int64) {
        guard (1...12).contains(month), (1...31).contains(dayOfMonth), abs(year) < 1_000_000 else { return nil }
        let date = CivilDate(day: Self.days(year: year, month: month, day: dayOfMonth))
        let parts = date.parts
        guard parts.year == year, parts.month == month, parts.day == dayOfMonth else { return nil }
        self = date
    }

    /// The date `text` starts with: `2026-11-28` or `2026-11-28T…`.
    package init?(prefixOf text: String) {
        var text = text
        guard let date = text.withUTF8({ CivilDate(prefixOf: $0) }) else { return nil }
        self = date
    }

    /// The date `bytes` start with.
    init?(prefixOf utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.count >= 10, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"),
              utf8.count == 10 || utf8[10] == UInt8(ascii: "T") || utf8[10] == UInt8(ascii: " ") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let byte = utf8[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, dayOfMonth: day)
    }

    package static func < (lhs: CivilDate, rhs: CivilDate) -> Bool { lhs.day < rhs.day }

    package func adding(days: Int64) -> CivilDate { CivilDate(day: day + days) }

    /// Howard Hinnant's days-from-civil.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Its year, month and day (civil-from-days).
    package var parts: (year: Int64, month: Int64, day: Int64) {
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfMonth)
    }

    package var description: String {
        let (year, month, day) = parts
        guard (0...9_999).contains(year) else {
            let digits = String(abs(year))
            return (year < 0 ? "-" : "") + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
                + "-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
        }
        // YYYY-MM-DD from its digits: a report writes one for every point.
        let zero = UInt8(ascii: "0"), dash = UInt8(ascii: "-")
        let digits: [UInt8] = [zero + UInt8(year / 1_000), zero + UInt8(year / 100 % 10), zero + UInt8(year / 10 % 10), zero + UInt8(year % 10), dash,
                               zero + UInt8(month / 10), zero + UInt8(month % 10), dash, zero + UInt8(day / 10), zero + UInt8(day % 10)]
        return String(decoding: digits, as: UTF8.self)
    }
}

extension CivilDate {
    /// Today on this machine's clock, in its time zone.
    package static func today() -> CivilDate {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec, parts = tm()
        localtime_r(&seconds, &parts)
        return CivilDate(day: days(year: Int64(parts.tm_year) + 1900, month: Int64(parts.tm_mon) + 1, day: Int64(parts.tm_mday)))
    }
}
