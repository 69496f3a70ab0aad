/// What `metronome stats` shows, summed from the practice log's entries:
/// minutes a day over the last weeks, totals by preset and by piece, the
/// tempo reached per piece by day, and the inspector's mean and spread per
/// tempo by day. Pure: the entries and today's date are given.
package struct PracticeStats: Sendable, Equatable {
    package struct Day: Sendable, Equatable {
        package let date: CivilDate
        package let seconds: Double
    }

    package struct Total: Sendable, Equatable {
        package let name: String
        package let seconds: Double
        package let runs: Int
    }

    /// A piece's highest tempo on each day it was played.
    package struct TempoLine: Sendable, Equatable {
        package let piece: String
        package let points: [(date: CivilDate, bpm: Double)]

        package static func == (lhs: TempoLine, rhs: TempoLine) -> Bool {
            lhs.piece == rhs.piece && lhs.points.elementsEqual(rhs.points) { $0.date == $1.date && $0.bpm == $1.bpm }
        }
    }

    /// The takes at one tempo: each day's mean offset and spread, averaged over its takes.
    package struct TakeLine: Sendable, Equatable {
        package let bpm: Double
        package let points: [(date: CivilDate, meanMs: Double, spreadMs: Double, takes: Int)]

        package static func == (lhs: TakeLine, rhs: TakeLine) -> Bool {
            lhs.bpm == rhs.bpm && lhs.points.elementsEqual(rhs.points) {
                $0.date == $1.date && $0.meanMs == $1.meanMs && $0.spreadMs == $1.spreadMs && $0.takes == $1.takes
            }
        }
    }

    /// Every entry that counts (after `since` and `piece`), its seconds summed.
    package let totalSeconds: Double
    package let runs: Int
    /// The days from `today` back over the chart's weeks, oldest first, practised or not.
    package let days: [Day]
    package let byPreset: [Total]
    package let byPiece: [Total]
    package let tempos: [TempoLine]
    package let takes: [TakeLine]

    /// - Parameters:
    ///   - entries: the log's readable lines.
    ///   - today: the last day of the chart of days.
    ///   - weeks: how many weeks that chart covers.
    ///   - since: entries before this day are left out.
    ///   - piece: only entries that played this song or preset.
    package init(_ entries: [PracticeLogEntry], today: CivilDate, weeks: Int = 4, since: CivilDate? = nil, piece: String? = nil) {
        var summing = Summing(today: today, weeks: weeks, since: since, piece: piece)
        for entry in entries { summing.add(entry) }
        self = summing.stats
    }

    init(totalSeconds: Double, runs: Int, days: [Day], byPreset: [Total], byPiece: [Total], tempos: [TempoLine], takes: [TakeLine]) {
        self.totalSeconds = totalSeconds
        self.runs = runs
        self.days = days
        self.byPreset = byPreset
        self.byPiece = byPiece
        self.tempos = tempos
        self.takes = takes
    }

    /// The figures summed an entry at a time, as the log is read: no entry is kept.
    package struct Summing {
        let first: CivilDate, today: CivilDate, weeks: Int
        let since: CivilDate?, piece: String?
        private var totalSeconds = 0.0, runs = 0
        private var perDay: [CivilDate: Double] = [:]
        /// Names by number, each hashed once a line (a String's hash normalizes it, the costliest part of a line).
        private var names: [String] = []
        private var numbers: [String: Int] = [:]
        private var presets: [Int: (seconds: Double, runs: Int)] = [:]
        private var pieces: [Int: (seconds: Double, runs: Int)] = [:]
        private var reached: [Int: [CivilDate: Double]] = [:]
        private var takeSums: [Double: [CivilDate: (mean: Double, spread: Double, takes: Int)]] = [:]

        package init(today: CivilDate, weeks: Int = 4, since: CivilDate? = nil, piece: String? = nil) {
            self.today = today
            self.weeks = max(1, weeks)
            first = today.adding(days: -Int64(max(1, weeks) * 7 - 1))
            self.since = since
            self.piece = piece
        }

        private mutating func number(_ name: String) -> Int {
            if let known = numbers[name] { return known }
            names.append(name)
            numbers[name] = names.count - 1
            return names.count - 1
        }

        package mutating func add(_ entry: PracticeLogEntry) {
            if let since, entry.date < since { return }
            let noPreset = "(no preset)"
            if let piece {
                let plays = entry.songs.isEmpty ? (entry.preset ?? noPreset) == piece : entry.songs.contains(piece)
                guard plays else { return }
            }
            totalSeconds += entry.playingSeconds
            runs += 1
            if entry.date >= first, entry.date <= today { perDay[entry.date, default: 0] += entry.playingSeconds }
            let preset = number(entry.preset ?? noPreset)
            Self.count(preset, entry.playingSeconds, in: &presets)
            if entry.songs.isEmpty {
                record(preset, entry)
            } else {
                for song in entry.songs { record(number(song), entry) }
            }
            if let bpm = entry.bpmMax, let mean = entry.takeMean, let spread = entry.takeSpread {
                let sum = takeSums[bpm]?[entry.date] ?? (0, 0, 0)
                takeSums[bpm, default: [:]][entry.date] = (sum.mean + mean, sum.spread + spread, sum.takes + 1)
            }
        }

        /// A run's time and tempo for one of its pieces.
        private mutating func record(_ name: Int, _ entry: PracticeLogEntry) {
            Self.count(name, entry.playingSeconds, in: &pieces)
            if let bpm = entry.bpmMax {
                reached[name, default: [:]][entry.date] = max(reached[name]?[entry.date] ?? bpm, bpm)
            }
        }

        private static func count(_ name: Int, _ seconds: Double, in sums: inout [Int: (seconds: Double, runs: Int)]) {
            let sum = sums[name] ?? (0, 0)
            sums[name] = (sum.seconds + seconds, sum.runs + 1)
        }

        private func named(_ sums: [Int: (seconds: Double, runs: Int)]) -> [String: (seconds: Double, runs: Int)] {
            Dictionary(uniqueKeysWithValues: sums.map { (names[$0.key], $0.value) })
        }

        package var stats: PracticeStats {
            PracticeStats(
                totalSeconds: totalSeconds, runs: runs,
                days: (0..<Int64(weeks * 7)).map { offset in
                    let date = first.adding(days: offset)
                    return Day(date: date, seconds: perDay[date] ?? 0)
                },
                byPreset: PracticeStats.totals(named(presets)), byPiece: PracticeStats.totals(named(pieces)),
                tempos: reached.map { (names[$0.key], $0.value) }.sorted { $0.0 < $1.0 }.map { piece, points in
                    TempoLine(piece: piece, points: points.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
                },
                takes: takeSums.keys.sorted().map { bpm in
                    TakeLine(bpm: bpm, points: takeSums[bpm]!.sorted { $0.key < $1.key }.map { date, sum in
                        (date, sum.mean / Double(sum.takes), sum.spread / Double(sum.takes), sum.takes)
                    })
                })
        }
    }

    /// Seconds and runs by name, most practised first (then by name).
    static func totals(_ sums: [String: (seconds: Double, runs: Int)]) -> [Total] {
        sums.map { Total(name: $0.key, seconds: $0.value.seconds, runs: $0.value.runs) }
            .sorted { ($1.seconds, $0.name) < ($0.seconds, $1.name) }
    }
}
