/// How the pendulum is drawn.
package enum PictureStyle: String, CaseIterable, Sendable {
    /// Plain ASCII: works in any terminal and any locale.
    case ascii
    /// Line-drawing and block characters, the rod in braille dots (2x4 a
    /// cell) so it moves by less than a cell; needs a UTF-8 terminal.
    case unicode

    /// The characters of the body, weight and boxes in this style.
    struct Glyphs {
        let topEdge, leftSide, rightSide, base, cover: Unicode.Scalar
        let weight, bellWeight: String
        let corners: (topLeft: Unicode.Scalar, topRight: Unicode.Scalar, bottomLeft: Unicode.Scalar, bottomRight: Unicode.Scalar)
        let horizontal, vertical: Unicode.Scalar
        let marker, bellMarker: Unicode.Scalar
    }

    var glyphs: Glyphs {
        switch self {
        case .ascii:
            Glyphs(topEdge: "_", leftSide: "/", rightSide: "\\", base: "=", cover: "#",
                   weight: "[#]", bellWeight: "[@]", corners: ("+", "+", "+", "+"), horizontal: "-", vertical: "|",
                   marker: "o", bellMarker: "@")
        case .unicode:
            Glyphs(topEdge: "\u{2581}", leftSide: "\u{2571}", rightSide: "\u{2572}", base: "\u{2580}", cover: "\u{2588}",
                   weight: "\u{2590}\u{2588}\u{258C}", bellWeight: "\u{25C0}\u{25CF}\u{25B6}",
                   corners: ("\u{250C}", "\u{2510}", "\u{2514}", "\u{2518}"), horizontal: "\u{2500}", vertical: "\u{2502}",
                   marker: "\u{25CF}", bellMarker: "\u{25C9}")
        }
    }
}
