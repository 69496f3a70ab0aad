import MetronomeSupport

/// `metronome stats` printed: charts drawn to a width on a terminal, a table
/// of tab-separated columns when not, or JSON.
package struct StatsReport {
    package let stats: PracticeStats
    package let skipped: Int

    package init(stats: PracticeStats, skipped: Int) {
        self.stats = stats
        self.skipped = skipped
    }

    // MARK: - Charts

    /// The charts, each line at most `width` columns; `unicode` draws bars in eighths of a cell.
    package func charts(width: Int, unicode: Bool) -> String {
        let width = max(40, width)
        var lines: [String] = []
        let first = stats.days.first?.date, last = stats.days.last?.date
        lines.append("Practice: \(Self.duration(stats.totalSeconds)) in \(stats.runs) run\(stats.runs == 1 ? "" : "s")")
        if skipped > 0 { lines.append("(\(skipped) line\(skipped == 1 ? "" : "s") of the log skipped: not practice log lines)") }

        lines.append("")
        lines.append("Minutes a day, \(first.map { "\($0)" } ?? "") to \(last.map { "\($0)" } ?? "")")
        let most = stats.days.map(\.seconds).max() ?? 0
        for day in stats.days {
            let label = "\(Self.weekday(day.date)) \(String(day.date.description.dropFirst(5)))"
            lines.append(Self.row(label: label, labelWidth: 9, value: day.seconds, most: most, figure: Self.minutes(day.seconds),
                                  width: width, unicode: unicode))
        }
        for (title, totals) in [("By preset", stats.byPreset), ("By song or preset", stats.byPiece)] where !totals.isEmpty {
            lines.append("")
            lines.append(title)
            let labelWidth = min(24, totals.map { $0.name.count }.max() ?? 0)
            let most = totals.first?.seconds ?? 0
            for total in totals {
                lines.append(Self.row(label: total.name, labelWidth: labelWidth, value: total.seconds, most: most,
                                      figure: "\(Self.duration(total.seconds)), \(total.runs) run\(total.runs == 1 ? "" : "s")",
                                      width: width, unicode: unicode))
            }
        }
        if !stats.tempos.isEmpty {
            lines.append("")
            lines.append("Tempo reached, by song or preset")
            for line in stats.tempos {
                lines.append("  " + Self.cut(line.piece, to: width - 2))
                let most = line.points.map(\.bpm).max() ?? 0
                for point in line.points {
                    lines.append(Self.row(label: "  \(point.date)", labelWidth: 12, value: point.bpm, most: most,
                                          figure: "\(Self.number(point.bpm)) bpm", width: width, unicode: unicode))
                }
            }
        }
        if !stats.takes.isEmpty {
            lines.append("")
            lines.append("Inspected takes: spread (bar) and mean offset, by tempo")
            for line in stats.takes {
                lines.append("  \(Self.number(line.bpm)) bpm")
                let most = line.points.map(\.spreadMs).max() ?? 0
                for point in line.points {
                    lines.append(Self.row(label: "  \(point.date)", labelWidth: 12, value: point.spreadMs, most: most,
                                          figure: "±\(Self.tenths(point.spreadMs)) ms, mean \(Self.tenths(point.meanMs)) ms",
                                          width: width, unicode: unicode))
                }
            }
        }
        return lines.map { Self.cut($0, to: width) }.joined(separator: "\n") + "\n"
    }

    /// `label |bar    figure`, the bar scaled to `most` in what the width leaves.
    static func row(label: String, labelWidth: Int, value: Double, most: Double, figure: String, width: Int, unicode: Bool) -> String {
        // A narrow terminal gives up label first, then figure, before the bar's last four cells.
        let labelWidth = max(1, min(labelWidth, width - 3 - figure.count - 4))
        let figure = cut(figure, to: max(1, width - labelWidth - 3 - 4))
        let name = cut(label, to: labelWidth)
        let padded = name + String(repeating: " ", count: max(0, labelWidth - name.count))
        let room = max(1, width - labelWidth - 3 - figure.count)
        let cells = most > 0 ? value / most * Double(room) : 0
        return padded + " |" + bar(cells, room: room, unicode: unicode) + " " + figure
    }

    /// `cells` of bar (to an eighth in unicode), padded to `room`.
    static func bar(_ cells: Double, room: Int, unicode: Bool) -> String {
        let clamped = min(max(cells, 0), Double(room))
        if unicode {
            let eighths = Int((clamped * 8).rounded())
            let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
            let drawn = String(repeating: "█", count: eighths / 8) + partials[eighths % 8]
            return drawn + String(repeating: " ", count: room - eighths / 8 - (eighths % 8 > 0 ? 1 : 0))
        }
        let whole = Int(clamped.rounded())
        return String(repeating: "#", count: whole) + String(repeating: " ", count: room - whole)
    }

    static func cut(_ text: String, to width: Int) -> String {
        // No more bytes than columns is no more characters either, and needs no counting.
        text.utf8.count <= width || text.count <= width ? text : String(text.prefix(max(1, width - 1))) + "~"
    }

    static func weekday(_ date: CivilDate) -> String {
        // 1970-01-01 was a Thursday.
        let names = ["Th", "Fr", "Sa", "Su", "Mo", "Tu", "We"]
        return names[Int(((date.day % 7) + 7) % 7)]
    }

    static func minutes(_ seconds: Double) -> String { "\(Int64((seconds / 60).rounded()))" }

    static func duration(_ seconds: Double) -> String {
        let minutes = Int64((seconds / 60).rounded())
        return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
    }

    static func tenths(_ milliseconds: Double) -> String {
        let tenths = Int64((milliseconds * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }

    /// A figure to the thousandth, written shortest: 72, 72.5, 61.234.
    static func number(_ value: Double) -> String {
        var text = ReportText()
        text.append(number: value)
        return text.string
    }

    // MARK: - Table

    /// Tab-separated sections, each under a header line: for a pipe or a file.
    package func table() -> String {
        var out = ReportText()
        out.append("# totals\nseconds\truns\tskipped\n")
        out.append(number: stats.totalSeconds)
        out.append("\t")
        out.append(integer: Int64(stats.runs))
        out.append("\t")
        out.append(integer: Int64(skipped))
        out.append("\n\n# days\ndate\tseconds\n")
        for day in stats.days {
            out.append(date: day.date)
            out.append("\t")
            out.append(number: day.seconds)
            out.append("\n")
        }
        for (title, totals) in [("presets", stats.byPreset), ("pieces", stats.byPiece)] {
            out.append("\n# ")
            out.append(text: title)
            out.append("\nname\tseconds\truns\n")
            for total in totals {
                out.append(text: Self.field(total.name))
                out.append("\t")
                out.append(number: total.seconds)
                out.append("\t")
                out.append(integer: Int64(total.runs))
                out.append("\n")
            }
        }
        out.append("\n# tempos\npiece\tdate\tbpm\n")
        for line in stats.tempos {
            let piece = Self.field(line.piece)
            for point in line.points {
                out.append(text: piece)
                out.append("\t")
                out.append(date: point.date)
                out.append("\t")
                out.append(number: point.bpm)
                out.append("\n")
            }
        }
        out.append("\n# takes\nbpm\tdate\tmeanMs\tspreadMs\ttakes\n")
        for line in stats.takes {
            for point in line.points {
                out.append(number: line.bpm)
                out.append("\t")
                out.append(date: point.date)
                out.append("\t")
                out.append(number: point.meanMs)
                out.append("\t")
                out.append(number: point.spreadMs)
                out.append("\t")
                out.append(integer: Int64(point.takes))
                out.append("\n")
            }
        }
        return out.string
    }

    /// A name in a column: its tabs and line breaks as spaces.
    static func field(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    // MARK: - JSON

    /// The same figures as one JSON object, its bytes written into one buffer.
    package func json() -> String {
        var out = ReportText()
        out.append("{\"totalSeconds\":")
        out.append(number: stats.totalSeconds)
        out.append(",\"runs\":")
        out.append(integer: Int64(stats.runs))
        out.append(",\"skipped\":")
        out.append(integer: Int64(skipped))
        out.append(",\"days\":[")
        for (index, day) in stats.days.enumerated() {
            if index > 0 { out.append(",") }
            out.append("{\"date\":\"")
            out.append(date: day.date)
            out.append("\",\"seconds\":")
            out.append(number: day.seconds)
            out.append("}")
        }
        for (key, totals) in [("presets", stats.byPreset), ("pieces", stats.byPiece)] {
            out.append("],\"")
            out.append(text: key)
            out.append("\":[")
            for (index, total) in totals.enumerated() {
                if index > 0 { out.append(",") }
                out.append("{\"name\":")
                out.append(text: quotedString(total.name))
                out.append(",\"seconds\":")
                out.append(number: total.seconds)
                out.append(",\"runs\":")
                out.append(integer: Int64(total.runs))
                out.append("}")
            }
        }
        out.append("],\"tempos\":[")
        for (index, line) in stats.tempos.enumerated() {
            if index > 0 { out.append(",") }
            out.append("{\"piece\":")
            out.append(text: quotedString(line.piece))
            out.append(",\"points\":[")
            for (pointIndex, point) in line.points.enumerated() {
                if pointIndex > 0 { out.append(",") }
                out.append("{\"date\":\"")
                out.append(date: point.date)
                out.append("\",\"bpm\":")
                out.append(number: point.bpm)
                out.append("}")
            }
            out.append("]}")
        }
        out.append("],\"takes\":[")
        for (index, line) in stats.takes.enumerated() {
            if index > 0 { out.append(",") }
            out.append("{\"bpm\":")
            out.append(number: line.bpm)
            out.append(",\"points\":[")
            for (pointIndex, point) in line.points.enumerated() {
                if pointIndex > 0 { out.append(",") }
                out.append("{\"date\":\"")
                out.append(date: point.date)
                out.append("\",\"meanMs\":")
                out.append(number: point.meanMs)
                out.append(",\"spreadMs\":")
                out.append(number: point.spreadMs)
                out.append(",\"takes\":")
                out.append(integer: Int64(point.takes))
                out.append("}")
            }
            out.append("]}")
        }
        out.append("]}\n")
        return out.string
    }
}

/// A report's text as UTF-8 bytes, its figures written digit by digit: a report
/// of a long log writes hundreds of thousands of them.
struct ReportText {
    private var bytes: [UInt8] = []

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func append(text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func append(integer value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        append(digits: value.magnitude, atLeast: 1)
    }

    /// `value`'s decimal digits, zeros in front up to `atLeast` of them.
    private mutating func append(digits value: UInt64, atLeast: Int) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { raw in
            let buffer = raw.bindMemory(to: UInt8.self)
            var rest = value, count = 0
            repeat {
                buffer[buffer.count - 1 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0 || count < atLeast
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[(buffer.count - count)...]))
        }
    }

    /// A figure to the thousandth, written shortest: 72, 72.5, 61.234 (0 for one out of range).
    mutating func append(number value: Double) {
        guard value.isFinite, abs(value) < 1e15 else { bytes.append(UInt8(ascii: "0")); return }
        let thousandths = Int64((value * 1_000).rounded())
        if thousandths < 0 { bytes.append(UInt8(ascii: "-")) }
        append(digits: thousandths.magnitude / 1_000, atLeast: 1)
        var fraction = thousandths.magnitude % 1_000, places = 3
        guard fraction > 0 else { return }
        while fraction % 10 == 0 { fraction /= 10; places -= 1 }
        bytes.append(UInt8(ascii: "."))
        append(digits: fraction, atLeast: places)
    }

    /// `YYYY-MM-DD`.
    mutating func append(date: CivilDate) {
        let (year, month, day) = date.parts
        guard (0...9_999).contains(year) else { append(text: date.description); return }
        append(digits: UInt64(year), atLeast: 4)
        bytes.append(UInt8(ascii: "-"))
        append(digits: UInt64(month), atLeast: 2)
        bytes.append(UInt8(ascii: "-"))
        append(digits: UInt64(day), atLeast: 2)
    }
}
