import Glibc
import MetronomeSupport

/// Draws the metronome: a trapezoid body, a rod pivoting at the bottom centre
/// with a weight on it, a cover over the pivot, and the status line; or, in a
/// terminal too small for that, a one-line beat indicator.
package enum PendulumPicture {
    package static let minimumWidth = 24
    package static let minimumHeight = 12
    /// Terminal cells are about twice as tall as wide.
    static let cellAspect = 2.0

    package static func draw(width: Int, height: Int, angle: Double, status: PendulumStatus, style: PictureStyle = .ascii) -> TextGrid {
        var grid = TextGrid(width: width, height: height)
        draw(into: &grid, angle: angle, status: status, statusLine: status.text(width: width), style: style)
        return grid
    }

    /// Draws over `grid` (cleared first), with the status line already made.
    package static func draw(into grid: inout TextGrid, angle: Double, status: PendulumStatus, statusLine: String,
                            style: PictureStyle = .ascii) {
        drawBody(into: &grid, style: style)
        drawFront(into: &grid, angle: angle, status: status, statusLine: statusLine, style: style)
    }

    /// Where the parts go in a grid of this size; nil where it is too small for the body (a one-line indicator).
    struct Layout {
        let centre, base, top, bodyHeight, topHalf, bottomHalf: Int

        init?(width: Int, height: Int) {
            guard width >= minimumWidth, height >= minimumHeight else { return nil }
            // The body: as tall as fits above the status line, 0.6 of its height wide (in cells, x2).
            var bodyHeight = min(height - 3, 40)
            while bodyHeight > 6, Int(Double(bodyHeight) * 1.2) + 2 > width { bodyHeight -= 1 }
            self.bodyHeight = bodyHeight
            bottomHalf = max(4, Int(Double(bodyHeight) * 0.6))
            topHalf = max(2, bottomHalf / 2)
            centre = width / 2
            base = (height - 2 + bodyHeight) / 2  // the body's bottom row
            top = base - bodyHeight + 1
        }
    }

    /// The part that never moves, over a blank grid: the body's outline (nothing where the grid is
    /// too small for it). The live loop draws it once a size and starts every frame from a copy.
    package static func drawBody(into grid: inout TextGrid, style: PictureStyle = .ascii) {
        grid.clear()
        guard let layout = Layout(width: grid.width, height: grid.height) else { return }
        let glyphs = style.glyphs
        let centre = layout.centre, top = layout.top, base = layout.base
        // Outline: top edge, sloping sides, base.
        for row in top...base {
            let fraction = Double(row - top) / Double(max(layout.bodyHeight - 1, 1))
            let half = Int((Double(layout.topHalf) + Double(layout.bottomHalf - layout.topHalf) * fraction).rounded())
            if row == top {
                grid.fill(glyphs.topEdge, x: (centre - half)...(centre + half), y: row - 1)
            }
            if row == base {
                grid.fill(glyphs.base, x: (centre - half - 1)...(centre + half + 1), y: row)
            } else {
                grid.put(glyphs.leftSide, x: centre - half, y: row)
                grid.put(glyphs.rightSide, x: centre + half, y: row)
            }
        }
    }

    /// What moves and what is said, over the body (`drawBody`): the rod, the weight, the cover over
    /// the pivot, the inspector's mark and the status line; or the one-line indicator.
    package static func drawFront(into grid: inout TextGrid, angle: Double, status: PendulumStatus, statusLine: String,
                                 style: PictureStyle = .ascii) {
        let width = grid.width, height = grid.height
        let glyphs = style.glyphs
        guard let layout = Layout(width: width, height: height) else {
            drawIndicator(into: &grid, angle: angle, status: status, glyphs: glyphs)
            return
        }
        let centre = layout.centre, base = layout.base, bodyHeight = layout.bodyHeight

        // The rod, from the pivot near the bottom.
        let coverHeight = max(2, bodyHeight / 5)
        let pivotRow = Double(base - coverHeight / 2)
        let length = Double(bodyHeight) * 0.9
        let radians = angle * Double.pi / 180
        let dx = sin(radians) * cellAspect, dy = -cos(radians)
        switch style {
        case .ascii:
            let rodCharacter: Unicode.Scalar = abs(angle) < 8 ? "|" : (angle > 0 ? "/" : "\\")
            // One cell a row, at the rod's x in the middle of that row.
            let rows = Int((length * -dy).rounded())
            for rise in 0...max(rows, 0) {
                let along = Double(rise) / max(-dy, 0.01)
                grid.put(rodCharacter, x: Int((Double(centre) + dx * along).rounded()), y: Int(pivotRow) - rise)
            }
        case .unicode:
            // From the middle of the pivot's cell.
            drawBrailleRod(into: &grid, from: (Double(centre) + 0.5, pivotRow + 0.5), direction: (dx, dy), length: length)
        }
        // The weight, two thirds of the way up; marked on the first beat of the bar.
        let weightAt = length * 0.62
        let wx = Int((Double(centre) + dx * weightAt).rounded())
        let wy = Int((pivotRow + dy * weightAt).rounded())
        grid.write(status.ringsTheBell ? glyphs.bellWeight : glyphs.weight, x: wx - 1, y: wy)

        // The cover over the pivot: a small solid trapezoid on the base.
        for offset in 1...coverHeight {
            let row = base - offset
            let half = max(2, layout.bottomHalf / 3) - offset / 2
            grid.fill(glyphs.cover, x: (centre - half)...(centre + half), y: row)
        }
        // The practice inspector's word on the last note, where a timeline would put it: early on the left, late on the right.
        if let mark = status.practice?.mark {
            grid.write(mark, x: mark.hasPrefix("late") ? max(0, width - 1 - mark.utf8.count) : 1, y: 0)
        }
        grid.write(statusLine, x: 0, y: height - 1)
    }

    /// The rod in braille dots, two across and four down a cell, an eighth of a row apart along it
    /// from `start` (in cells) for `length` rows. The dots are gathered a cell at a time (a cell's
    /// dots are neighbours along the rod) and each cell set once, as `dot` would set them one by one.
    static func drawBrailleRod(into grid: inout TextGrid, from start: (x: Double, y: Double), direction: (dx: Double, dy: Double),
                               length: Double) {
        let steps = Int(length * 8), dotColumns = Double(grid.width * 2), dotRows = Double(grid.height * 4)
        var cell = (x: -1, y: -1), bits: UInt32 = 0
        for step in 0...steps {
            let along = Double(step) / 8
            let x = (start.x + direction.dx * along) * 2, y = (start.y + direction.dy * along) * 4
            // Off the grid, no dot; on it, not negative, `Int` truncates to the floor.
            guard x >= 0, y >= 0, x < dotColumns, y < dotRows else { continue }
            let dotX = Int(x), dotY = Int(y)
            if dotX >> 1 != cell.x || dotY >> 2 != cell.y {
                grid.dots(bits, x: cell.x, y: cell.y)
                (cell, bits) = ((dotX >> 1, dotY >> 2), 0)
            }
            bits |= TextGrid.brailleBit(x: dotX & 1, y: dotY & 3)
        }
        grid.dots(bits, x: cell.x, y: cell.y)
    }

    /// One line: the rod's position as a marker between two walls, then the status.
    static func drawIndicator(into grid: inout TextGrid, angle: Double, status: PendulumStatus, glyphs: PictureStyle.Glyphs) {
        guard grid.height > 0, grid.width > 0 else { return }
        let track = max(3, min(21, grid.width / 3))
        let position = Int(((angle / 60 + 0.5) * Double(track - 1)).rounded())
        let row = grid.height - 1
        grid.put(glyphs.vertical, x: 0, y: row)
        for x in 1...track { grid.put(glyphs.horizontal, x: x, y: row) }
        grid.put(glyphs.vertical, x: track + 1, y: row)
        grid.put(status.ringsTheBell ? glyphs.bellMarker : glyphs.marker, x: 1 + min(max(position, 0), track - 1), y: row)
        grid.write(status.text(width: max(0, grid.width - track - 3)), x: track + 3, y: row)
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
        "n  p       next / previous song",
        "q  Esc     quit     ? close",
    ]

    /// The keys, in a box over the middle of the picture (`?`).
    package static func drawHelp(into grid: inout TextGrid, style: PictureStyle = .ascii) {
        let glyphs = style.glyphs
        let inner = helpLines.map(\.utf8.count).max() ?? 0
        let boxWidth = inner + 4, boxHeight = helpLines.count + 2
        guard grid.width >= boxWidth, grid.height >= boxHeight + 1 else { return }
        let left = (grid.width - boxWidth) / 2, top = max(0, (grid.height - 1 - boxHeight) / 2)
        let bottom = top + boxHeight - 1, right = left + boxWidth - 1
        grid.fill(glyphs.horizontal, x: left...right, y: top)
        grid.fill(glyphs.horizontal, x: left...right, y: bottom)
        grid.put(glyphs.corners.topLeft, x: left, y: top)
        grid.put(glyphs.corners.topRight, x: right, y: top)
        grid.put(glyphs.corners.bottomLeft, x: left, y: bottom)
        grid.put(glyphs.corners.bottomRight, x: right, y: bottom)
        for (row, line) in helpLines.enumerated() {
            let y = top + 1 + row
            grid.fill(" ", x: (left + 1)...(right - 1), y: y)
            grid.put(glyphs.vertical, x: left, y: y)
            grid.put(glyphs.vertical, x: right, y: y)
            grid.write(line, x: left + 2, y: y)
        }
    }
}
