import Glibc

/// What the status line says.
public struct PendulumStatus: Sendable, Equatable {
    public var tempo: Tempo
    public var meter: Meter
    /// Bar and beat being heard, from 1; nil before the first click.
    public var bar: Int64?
    public var beatInBar: Int
    public var elapsedSeconds: Int64
    public var underruns: Int
    /// Whether the first beat of a bar rings the bell (`0` turns it off).
    public var bell: Bool
    public var paused: Bool
    public var muted: Bool
    /// Whether `bar` is a bar of the count-in (counted from 1 within it).
    public var countIn: Bool

    public init(tempo: Tempo, meter: Meter, bar: Int64?, beatInBar: Int, elapsedSeconds: Int64, underruns: Int,
                bell: Bool = true, paused: Bool = false, muted: Bool = false, countIn: Bool = false) {
        self.tempo = tempo
        self.meter = meter
        self.bar = bar
        self.beatInBar = beatInBar
        self.elapsedSeconds = elapsedSeconds
        self.underruns = underruns
        self.bell = bell
        self.paused = paused
        self.muted = muted
        self.countIn = countIn
    }

    static func twoDigits(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// `137 bpm  4/4  12:3  [1] 2  3  4   01:23  ? keys  q quit`, as much as fits.
    public func text(width: Int) -> String {
        var beats = ""
        if meter.beatsPerBar <= 12 {
            for beat in 1...meter.beatsPerBar {
                beats += bar != nil && beat == beatInBar ? "[\(beat)]" : " \(beat) "
            }
        }
        let position = bar.map { (countIn ? "count-in " : "") + "\($0):\(beatInBar)" } ?? "-:-"
        let clock = Self.twoDigits(elapsedSeconds / 60) + ":" + Self.twoDigits(elapsedSeconds % 60)
        let place = ["\(tempo) bpm", bell ? meter.description : "\(meter) no bell", position]
        var state = [clock]
        if paused { state.append("PAUSED") }
        if muted { state.append("muted") }
        if underruns > 0 { state.append("underruns \(underruns)") }
        // Where the width is short the beat boxes go first, then the help key; the quit key stays.
        let lines = [place + (beats.isEmpty ? [] : [beats]) + state + ["? keys", "q quit"],
                     place + state + ["? keys", "q quit"],
                     place + state + ["q quit"]].map { $0.joined(separator: "  ") }
        let line = lines.first { $0.utf8.count <= width } ?? lines[2]
        return String(line.utf8.prefix(width)) ?? ""
    }
}

/// Draws the metronome: a trapezoid body, a rod pivoting at the bottom centre
/// with a weight on it, a cover over the pivot, and the status line; or, in a
/// terminal too small for that, a one-line beat indicator.
public enum PendulumPicture {
    public static let minimumWidth = 24
    public static let minimumHeight = 12
    /// Terminal cells are about twice as tall as wide.
    static let cellAspect = 2.0

    public static func draw(width: Int, height: Int, angle: Double, status: PendulumStatus) -> TextGrid {
        var grid = TextGrid(width: width, height: height)
        draw(into: &grid, angle: angle, status: status, statusLine: status.text(width: width))
        return grid
    }

    /// Draws over `grid` (cleared first), with the status line already made:
    /// the live loop reuses one grid and one line while they do not change.
    public static func draw(into grid: inout TextGrid, angle: Double, status: PendulumStatus, statusLine: String) {
        grid.clear()
        let width = grid.width, height = grid.height
        guard width >= minimumWidth, height >= minimumHeight else {
            drawIndicator(into: &grid, angle: angle, status: status)
            return
        }
        // The body: as tall as fits above the status line, 0.6 of its height wide (in cells, x2).
        var bodyHeight = min(height - 3, 40)
        while bodyHeight > 6, Int(Double(bodyHeight) * 1.2) + 2 > width { bodyHeight -= 1 }
        let bottomHalf = max(4, Int(Double(bodyHeight) * 0.6))
        let topHalf = max(2, bottomHalf / 2)
        let centre = width / 2
        let base = (height - 2 + bodyHeight) / 2  // the body's bottom row
        let top = base - bodyHeight + 1

        // Outline: top edge, sloping sides, base.
        for row in top...base {
            let fraction = Double(row - top) / Double(max(bodyHeight - 1, 1))
            let half = Int((Double(topHalf) + Double(bottomHalf - topHalf) * fraction).rounded())
            if row == top {
                for x in (centre - half)...(centre + half) { grid.put(UInt8(ascii: "_"), x: x, y: row - 1) }
            }
            if row == base {
                for x in (centre - half - 1)...(centre + half + 1) { grid.put(UInt8(ascii: "="), x: x, y: row) }
            } else {
                grid.put(UInt8(ascii: "/"), x: centre - half, y: row)
                grid.put(UInt8(ascii: "\\"), x: centre + half, y: row)
            }
        }

        // The rod, from the pivot near the bottom, drawn by stepping along it.
        let coverHeight = max(2, bodyHeight / 5)
        let pivotRow = Double(base - coverHeight / 2)
        let length = Double(bodyHeight) * 0.9
        let radians = angle * Double.pi / 180
        let dx = sin(radians) * cellAspect, dy = -cos(radians)
        let rodCharacter: UInt8 = abs(angle) < 8 ? UInt8(ascii: "|") : (angle > 0 ? UInt8(ascii: "/") : UInt8(ascii: "\\"))
        // One cell a row, at the rod's x in the middle of that row.
        let rows = Int((length * -dy).rounded())
        for rise in 0...max(rows, 0) {
            let along = Double(rise) / max(-dy, 0.01)
            grid.put(rodCharacter, x: Int((Double(centre) + dx * along).rounded()), y: Int(pivotRow) - rise)
        }
        // The weight, two thirds of the way up; marked on the first beat of the bar.
        let weightAt = length * 0.62
        let wx = Int((Double(centre) + dx * weightAt).rounded())
        let wy = Int((pivotRow + dy * weightAt).rounded())
        grid.write(status.bell && status.bar != nil && status.beatInBar == 1 ? "[@]" : "[#]", x: wx - 1, y: wy)

        // The cover over the pivot: a small solid trapezoid on the base.
        for offset in 1...coverHeight {
            let row = base - offset
            let half = max(2, bottomHalf / 3) - offset / 2
            for x in (centre - half)...(centre + half) { grid.put(UInt8(ascii: "#"), x: x, y: row) }
        }
        grid.write(statusLine, x: 0, y: height - 1)
    }

    /// One line: the rod's position as a marker between two walls, then the status.
    static func drawIndicator(into grid: inout TextGrid, angle: Double, status: PendulumStatus) {
        guard grid.height > 0, grid.width > 0 else { return }
        let track = max(3, min(21, grid.width / 3))
        let position = Int(((angle / 60 + 0.5) * Double(track - 1)).rounded())
        var line = "|" + String(repeating: "-", count: track) + "|"
        let marker = status.bell && status.bar != nil && status.beatInBar == 1 ? "@" : "o"
        let index = line.index(line.startIndex, offsetBy: 1 + min(max(position, 0), track - 1))
        line.replaceSubrange(index...index, with: marker)
        grid.write(line + " " + status.text(width: max(0, grid.width - track - 3)), x: 0, y: grid.height - 1)
    }

    static let helpLines = [
        "Space      pause / resume",
        "Up  Down   tempo +1 / -1 bpm",
        "Right Left tempo +5 / -5 bpm",
        "PgUp PgDn  tempo x2 / /2",
        "t          tap tempo",
        "1-9        beats per bar (0: no bell)",
        "m          mute / unmute",
        "+  -       volume +0.1 / -0.1",
        "q  Esc     quit     ? close",
    ]

    /// The keys, in a box over the middle of the picture (`?`).
    public static func drawHelp(into grid: inout TextGrid) {
        let inner = helpLines.map(\.utf8.count).max() ?? 0
        let boxWidth = inner + 4, boxHeight = helpLines.count + 2
        guard grid.width >= boxWidth, grid.height >= boxHeight + 1 else { return }
        let left = (grid.width - boxWidth) / 2, top = max(0, (grid.height - 1 - boxHeight) / 2)
        let edge = "+" + String(repeating: "-", count: boxWidth - 2) + "+"
        grid.write(edge, x: left, y: top)
        for (row, line) in helpLines.enumerated() {
            grid.write("| " + line + String(repeating: " ", count: inner - line.utf8.count) + " |", x: left, y: top + 1 + row)
        }
        grid.write(edge, x: left, y: top + boxHeight - 1)
    }
}
