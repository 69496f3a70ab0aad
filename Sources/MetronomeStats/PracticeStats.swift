import Glibc
import SystemPackage

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

    /// The figures summed a line at a time, as the log is read: no line is kept, and
    /// none allocates once the tables have grown. Names are numbered by their bytes,
    /// and made Strings once each; sums by name and day sit in flat tables.
    package struct Summing {
        let first: CivilDate, today: CivilDate, weeks: Int
        let since: CivilDate?, piece: String?
        private var totalSeconds = 0.0, runs = 0
        /// Seconds by day of the chart, from `first`.
        private var perDay: [Double]
        private var names = NameTable()
        /// By a name's number: whether it is the piece asked for, and its sums as preset and as piece.
        private var isPiece: [Bool] = []
        private var presets: [(seconds: Double, runs: Int)] = []
        private var pieces: [(seconds: Double, runs: Int)] = []
        /// The highest tempo by piece and day.
        private var reached = FlatTable<Double>()
        /// Each tempo of the inspected takes, numbered; their sums by that number and day.
        private var tempos = FlatTable<Double>()
        private var takeSums = FlatTable<(mean: Double, spread: Double, takes: Int)>()
        /// The line being read and its songs' numbers, kept for their buffers.
        private var line = PracticeLogLine()
        private var songNumbers: [Int] = []
        /// The number of "(no preset)", a run's preset when it named none.
        private let noPreset = 0

        package init(today: CivilDate, weeks: Int = 4, since: CivilDate? = nil, piece: String? = nil) {
            self.today = today
            self.weeks = max(1, weeks)
            first = today.adding(days: -Int64(max(1, weeks) * 7 - 1))
            self.since = since
            self.piece = piece
            perDay = [Double](repeating: 0, count: self.weeks * 7)
            let none = Array("(no preset)".utf8)
            _ = number(none.indices, in: none)
        }

        /// Adds one line of the log; false if it is not a practice log line.
        package mutating func add(line bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            var current = PracticeLogLine()
            swap(&current, &line)
            defer { swap(&current, &line) }
            guard current.read(bytes) else { return false }
            add(current)
            return true
        }

        package mutating func add(_ entry: PracticeLogEntry) { add(PracticeLogLine(entry)) }

        private mutating func add(_ line: PracticeLogLine) {
            if let since, line.date < since { return }
            let preset = line.preset.map { number($0, in: line.text) } ?? noPreset
            songNumbers.removeAll(keepingCapacity: true)
            for song in line.songs { songNumbers.append(number(song, in: line.text)) }
            if piece != nil {
                guard songNumbers.isEmpty ? isPiece[preset] : songNumbers.contains(where: { isPiece[$0] }) else { return }
            }
            let seconds = line.playingSeconds
            totalSeconds += seconds
            runs += 1
            let offset = line.date.day - first.day
            if offset >= 0, offset < perDay.count { perDay[Int(offset)] += seconds }
            presets[preset].seconds += seconds
            presets[preset].runs += 1
            if songNumbers.isEmpty {
                record(preset, line)
            } else {
                for index in songNumbers.indices { record(songNumbers[index], line) }
            }
            if let bpm = line.bpmMax, let mean = line.takeMean, let spread = line.takeSpread {
                // -0 and 0 are one tempo.
                let tempo = tempos.index(of: Int64(bitPattern: (bpm + 0).bitPattern), initial: bpm + 0)
                let index = takeSums.index(of: Self.key(tempo, line.date), initial: (0, 0, 0))
                takeSums.values[index].mean += mean
                takeSums.values[index].spread += spread
                takeSums.values[index].takes += 1
            }
        }

        /// The log at `path` summed by `summing`'s copies, a thread for each 8 MB of it up to one a core
        /// (8 at most), merged in the log's order; and how many lines were skipped. Nil when the log does
        /// not exist, else why it cannot be read.
        package static func read(_ path: String, into summing: Summing) -> Result<(summing: Summing, skipped: Int), Errno>? {
            var status = stat()
            let size = stat(path, &status) == 0 ? Int(status.st_size) : 0
            let parts = max(1, min(8, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), size >> 23))
            var summings = [summing] + (1..<parts).map { _ in
                Summing(today: summing.today, weeks: summing.weeks, since: summing.since, piece: summing.piece)
            }
            let read = PracticeLogFile.read(path, into: &summings) { $0.add(line: $1) }
            return read.map { result in
                result.map { skipped in
                    var whole = summings[0]
                    for part in summings.dropFirst() { whole.merge(part) }
                    return (whole, skipped)
                }
            }
        }

        /// Adds what `other` summed (the same days, the same filters), as though its lines had come after these.
        package mutating func merge(_ other: Summing) {
            totalSeconds += other.totalSeconds
            runs += other.runs
            for index in perDay.indices { perDay[index] += other.perDay[index] }
            let renumbered = (0..<other.names.count).map { name in
                let utf8 = Array(other.names.utf8(name))
                return number(utf8.indices, in: utf8)
            }
            for (name, sum) in other.presets.enumerated() {
                presets[renumbered[name]].seconds += sum.seconds
                presets[renumbered[name]].runs += sum.runs
            }
            for (name, sum) in other.pieces.enumerated() {
                pieces[renumbered[name]].seconds += sum.seconds
                pieces[renumbered[name]].runs += sum.runs
            }
            for (index, key) in other.reached.keys.enumerated() {
                let bpm = other.reached.values[index]
                let mine = reached.index(of: Self.key(renumbered[Int(key >> 32)], Self.date(ofKey: key)), initial: bpm)
                reached.values[mine] = max(reached.values[mine], bpm)
            }
            for (index, key) in other.takeSums.keys.enumerated() {
                let bpm = other.tempos.values[Int(key >> 32)]
                let tempo = tempos.index(of: Int64(bitPattern: bpm.bitPattern), initial: bpm)
                let mine = takeSums.index(of: Self.key(tempo, Self.date(ofKey: key)), initial: (0, 0, 0))
                let sum = other.takeSums.values[index]
                takeSums.values[mine].mean += sum.mean
                takeSums.values[mine].spread += sum.spread
                takeSums.values[mine].takes += sum.takes
            }
        }

        /// A run's time and tempo for one of its pieces.
        private mutating func record(_ name: Int, _ line: PracticeLogLine) {
            pieces[name].seconds += line.playingSeconds
            pieces[name].runs += 1
            if let bpm = line.bpmMax {
                let index = reached.index(of: Self.key(name, line.date), initial: bpm)
                reached.values[index] = max(reached.values[index], bpm)
            }
        }

        /// The number of the name at `range` in `text`, its sums started if it is new.
        private mutating func number(_ range: Range<Int>, in text: [UInt8]) -> Int {
            let (number, isNew) = text.withUnsafeBufferPointer { names.number(UnsafeBufferPointer(rebasing: $0[range])) }
            if isNew {
                isPiece.append(piece == names.names[number])
                presets.append((0, 0))
                pieces.append((0, 0))
            }
            return number
        }

        /// A number (of a name or a tempo) and a day in one key; a day of a year under a million fits 32 bits.
        private static func key(_ number: Int, _ date: CivilDate) -> Int64 {
            Int64(number) << 32 | Int64(UInt32(truncatingIfNeeded: date.day))
        }

        private static func date(ofKey key: Int64) -> CivilDate { CivilDate(day: Int64(Int32(truncatingIfNeeded: key))) }

        /// Sums by name, for the names that ran: two names whose bytes differ but whose Strings are equal
        /// (the same letters composed differently, or bytes that are no UTF-8) are one name.
        private func named(_ sums: [(seconds: Double, runs: Int)]) -> [String: (seconds: Double, runs: Int)] {
            var merged: [String: (seconds: Double, runs: Int)] = [:]
            for (number, sum) in sums.enumerated() where sum.runs > 0 {
                let total = merged[names.names[number]] ?? (0, 0)
                merged[names.names[number]] = (total.seconds + sum.seconds, total.runs + sum.runs)
            }
            return merged
        }

        package var stats: PracticeStats {
            var reachedByPiece: [String: [CivilDate: Double]] = [:]
            for (index, key) in reached.keys.enumerated() {
                let piece = names.names[Int(key >> 32)], date = Self.date(ofKey: key), bpm = reached.values[index]
                reachedByPiece[piece, default: [:]][date] = max(reachedByPiece[piece]?[date] ?? bpm, bpm)
            }
            // The takes by tempo, then day: each tempo's rank and the day (from the earliest a key holds) in one sortable key.
            var rank = [Int](repeating: 0, count: tempos.count)
            for (order, tempo) in tempos.values.indices.sorted(by: { tempos.values[$0] < tempos.values[$1] }).enumerated() { rank[tempo] = order }
            let takeOrder = takeSums.keys.enumerated().map { index, key in
                (UInt64(rank[Int(key >> 32)]) << 32 | UInt64(UInt32(truncatingIfNeeded: Self.date(ofKey: key).day + Int64(Int32.max) + 1)), index)
            }.sorted { $0.0 < $1.0 }.map(\.1)
            var takes: [TakeLine] = []
            var start = 0
            while start < takeOrder.count {
                let bpm = tempos.values[Int(takeSums.keys[takeOrder[start]] >> 32)]
                var end = start
                while end < takeOrder.count, tempos.values[Int(takeSums.keys[takeOrder[end]] >> 32)] == bpm { end += 1 }
                takes.append(TakeLine(bpm: bpm, points: takeOrder[start..<end].map { index in
                    let sum = takeSums.values[index]
                    return (Self.date(ofKey: takeSums.keys[index]), sum.mean / Double(sum.takes), sum.spread / Double(sum.takes), sum.takes)
                }))
                start = end
            }
            return PracticeStats(
                totalSeconds: totalSeconds, runs: runs,
                days: perDay.enumerated().map { Day(date: first.adding(days: Int64($0.offset)), seconds: $0.element) },
                byPreset: PracticeStats.totals(named(presets)), byPiece: PracticeStats.totals(named(pieces)),
                tempos: reachedByPiece.sorted { $0.key < $1.key }.map { piece, points in
                    TempoLine(piece: piece, points: points.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
                },
                takes: takes)
        }
    }

    /// Seconds and runs by name, most practised first (then by name).
    static func totals(_ sums: [String: (seconds: Double, runs: Int)]) -> [Total] {
        sums.map { Total(name: $0.key, seconds: $0.value.seconds, runs: $0.value.runs) }
            .sorted { ($1.seconds, $0.name) < ($0.seconds, $1.name) }
    }
}
