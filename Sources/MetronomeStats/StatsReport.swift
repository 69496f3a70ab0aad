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
        text.count <= width ? text : String(text.prefix(max(1, width - 1))) + "~"
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
        guard value.isFinite, abs(value) < 1e15 else { return "0" }
        let thousandths = Int64((value * 1_000).rounded())
        let sign = thousandths < 0 ? "-" : ""
        var fraction = String(abs(thousandths) % 1_000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return sign + String(abs(thousandths) / 1_000) + (fraction.isEmpty ? "" : "." + fraction)
    }

    // MARK: - Table

    /// Tab-separated sections, each under a header line: for a pipe or a file.
    package func table() -> String {
        var lines = ["# totals", "seconds\truns\tskipped", "\(Self.number(stats.totalSeconds))\t\(stats.runs)\t\(skipped)", "",
                     "# days", "date\tseconds"]
        lines += stats.days.map { "\($0.date)\t\(Self.number($0.seconds))" }
        for (title, totals) in [("presets", stats.byPreset), ("pieces", stats.byPiece)] {
            lines += ["", "# \(title)", "name\tseconds\truns"]
            lines += totals.map { "\(Self.field($0.name))\t\(Self.number($0.seconds))\t\($0.runs)" }
        }
        lines += ["", "# tempos", "piece\tdate\tbpm"]
        lines += stats.tempos.flatMap { line in line.points.map { "\(Self.field(line.piece))\t\($0.date)\t\(Self.number($0.bpm))" } }
        lines += ["", "# takes", "bpm\tdate\tmeanMs\tspreadMs\ttakes"]
        lines += stats.takes.flatMap { line in
            line.points.map { "\(Self.number(line.bpm))\t\($0.date)\t\(Self.number($0.meanMs))\t\(Self.number($0.spreadMs))\t\($0.takes)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A name in a column: its tabs and line breaks as spaces.
    static func field(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    // MARK: - JSON

    /// The same figures as one JSON object, written into one string.
    package func json() -> String {
        var out = "{\"totalSeconds\":\(Self.number(stats.totalSeconds)),\"runs\":\(stats.runs),\"skipped\":\(skipped),\"days\":["
        for (index, day) in stats.days.enumerated() {
            if index > 0 { out += "," }
            out += "{\"date\":\"\(day.date)\",\"seconds\":\(Self.number(day.seconds))}"
        }
        for (key, totals) in [("presets", stats.byPreset), ("pieces", stats.byPiece)] {
            out += "],\"\(key)\":["
            for (index, total) in totals.enumerated() {
                if index > 0 { out += "," }
                out += "{\"name\":" + quotedString(total.name) + ",\"seconds\":" + Self.number(total.seconds) + ",\"runs\":\(total.runs)}"
            }
        }
        out += "],\"tempos\":["
        for (index, line) in stats.tempos.enumerated() {
            if index > 0 { out += "," }
            out += "{\"piece\":" + quotedString(line.piece) + ",\"points\":["
            for (pointIndex, point) in line.points.enumerated() {
                if pointIndex > 0 { out += "," }
                out += "{\"date\":\"\(point.date)\",\"bpm\":" + Self.number(point.bpm) + "}"
            }
            out += "]}"
        }
        out += "],\"takes\":["
        for (index, line) in stats.takes.enumerated() {
            if index > 0 { out += "," }
            out += "{\"bpm\":" + Self.number(line.bpm) + ",\"points\":["
            for (pointIndex, point) in line.points.enumerated() {
                if pointIndex > 0 { out += "," }
                out += "{\"date\":\"\(point.date)\",\"meanMs\":" + Self.number(point.meanMs) + ",\"spreadMs\":" + Self.number(point.spreadMs)
                    + ",\"takes\":\(point.takes)}"
            }
            out += "]}"
        }
        return out + "]}\n"
    }
}
