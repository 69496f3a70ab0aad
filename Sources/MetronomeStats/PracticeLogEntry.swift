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
    package static func parse(_ line: UnsafeBufferPointer<UInt8>) -> PracticeLogEntry? {
        var scanner = JSONScanner(line)
        guard scanner.take(UInt8(ascii: "{")) else { return nil }
        var date: CivilDate?, seconds: Double?, preset: String?, songs: [String] = [], bpmMax: Double?
        var mean: Double?, spread: Double?
        if !scanner.take(UInt8(ascii: "}")) {
            repeat {
                guard let key = Field(&scanner), scanner.take(UInt8(ascii: ":")) else { return nil }
                switch key {
                case .start:
                    if let raw = scanner.plainString() {
                        date = CivilDate(prefixOf: raw)
                    } else {
                        guard let text = scanner.string() else { return nil }
                        date = CivilDate(prefixOf: text)
                    }
                case .playingSeconds:
                    guard let value = scanner.number() else { return nil }
                    seconds = value
                case .preset:
                    guard let text = scanner.string() else { return nil }
                    preset = text
                case .songs:
                    guard scanner.take(UInt8(ascii: "[")) else { return nil }
                    if !scanner.take(UInt8(ascii: "]")) {
                        repeat {
                            guard let song = scanner.string() else { return nil }
                            songs.append(song)
                        } while scanner.take(UInt8(ascii: ","))
                        guard scanner.take(UInt8(ascii: "]")) else { return nil }
                    }
                case .bpmMax:
                    guard let value = scanner.number() else { return nil }
                    bpmMax = value
                case .take:
                    guard scanner.take(UInt8(ascii: "{")) else { return nil }
                    if !scanner.take(UInt8(ascii: "}")) {
                        repeat {
                            guard let field = Field(&scanner), scanner.take(UInt8(ascii: ":")) else { return nil }
                            switch field {
                            case .meanMs: mean = scanner.number()
                            case .spreadMs: spread = scanner.number()
                            default: guard scanner.skipValue() else { return nil }
                            }
                        } while scanner.take(UInt8(ascii: ","))
                        guard scanner.take(UInt8(ascii: "}")) else { return nil }
                    }
                default:
                    guard scanner.skipValue() else { return nil }
                }
            } while scanner.take(UInt8(ascii: ","))
            guard scanner.take(UInt8(ascii: "}")) else { return nil }
        }
        scanner.skipSpaces()
        guard scanner.atEnd, let date, let seconds, seconds >= 0, seconds.isFinite, seconds < 1e9 else { return nil }
        return PracticeLogEntry(date: date, playingSeconds: seconds, preset: preset, songs: songs,
                                bpmMax: bpmMax.flatMap { $0.isFinite ? $0 : nil },
                                takeMean: mean.flatMap { $0.isFinite ? $0 : nil }, takeSpread: spread.flatMap { $0.isFinite ? $0 : nil })
    }
}

/// The keys of a log line that `stats` reads, matched on their bytes (a String for one with an escape).
enum Field {
    case start, playingSeconds, preset, songs, bpmMax, take, meanMs, spreadMs, other

    static let names: [(StaticString, Field)] = [("start", .start), ("playingSeconds", .playingSeconds), ("preset", .preset),
                                                  ("songs", .songs), ("bpmMax", .bpmMax), ("take", .take), ("meanMs", .meanMs),
                                                  ("spreadMs", .spreadMs)]

    /// The key next in `scanner`; nil if there is none.
    init?(_ scanner: inout JSONScanner) {
        if let raw = scanner.plainString() {
            self = .other
            for (name, field) in Self.names where name.utf8CodeUnitCount == raw.count {
                if memcmp(name.utf8Start, raw.baseAddress!, raw.count) == 0 { self = field; break }
            }
        } else {
            guard let text = scanner.string() else { return nil }
            self = Self.names.first { "\($0.0)" == text }?.1 ?? .other
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
