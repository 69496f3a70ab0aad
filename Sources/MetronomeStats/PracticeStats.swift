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
        let counted = entries.filter { entry in
            (since.map { entry.date >= $0 } ?? true) && (piece.map { entry.pieces.contains($0) } ?? true)
        }
        totalSeconds = counted.reduce(0) { $0 + $1.playingSeconds }
        runs = counted.count
        let first = today.adding(days: -Int64(max(1, weeks) * 7 - 1))
        var perDay: [CivilDate: Double] = [:]
        for entry in counted where entry.date >= first && entry.date <= today { perDay[entry.date, default: 0] += entry.playingSeconds }
        days = (0..<Int64(max(1, weeks) * 7)).map { offset in
            let date = first.adding(days: offset)
            return Day(date: date, seconds: perDay[date] ?? 0)
        }
        byPreset = Self.totals(counted.map { ($0.preset ?? "(no preset)", $0.playingSeconds) })
        byPiece = Self.totals(counted.flatMap { entry in entry.pieces.map { ($0, entry.playingSeconds) } })

        var reached: [String: [CivilDate: Double]] = [:]
        for entry in counted {
            guard let bpm = entry.bpmMax else { continue }
            for piece in entry.pieces { reached[piece, default: [:]][entry.date] = max(reached[piece]?[entry.date] ?? bpm, bpm) }
        }
        tempos = reached.keys.sorted().map { piece in
            TempoLine(piece: piece, points: reached[piece]!.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }

        var sums: [Double: [CivilDate: (mean: Double, spread: Double, takes: Int)]] = [:]
        for entry in counted {
            guard let bpm = entry.bpmMax, let mean = entry.takeMean, let spread = entry.takeSpread else { continue }
            let sum = sums[bpm]?[entry.date] ?? (0, 0, 0)
            sums[bpm, default: [:]][entry.date] = (sum.mean + mean, sum.spread + spread, sum.takes + 1)
        }
        takes = sums.keys.sorted().map { bpm in
            TakeLine(bpm: bpm, points: sums[bpm]!.sorted { $0.key < $1.key }.map { date, sum in
                (date, sum.mean / Double(sum.takes), sum.spread / Double(sum.takes), sum.takes)
            })
        }
    }

    /// Seconds and runs by name, most practised first (then by name).
    static func totals(_ items: [(String, Double)]) -> [Total] {
        var sums: [String: (seconds: Double, runs: Int)] = [:]
        for (name, seconds) in items {
            let sum = sums[name] ?? (0, 0)
            sums[name] = (sum.seconds + seconds, sum.runs + 1)
        }
        return sums.map { Total(name: $0.key, seconds: $0.value.seconds, runs: $0.value.runs) }
            .sorted { ($1.seconds, $0.name) < ($0.seconds, $1.name) }
    }
}
