/// How each bar is played beyond its tempo and meter: accents, subdivisions,
/// a second voice, a count-in, and muted beats. Fixed for a run (a meter key
/// drops a pattern that no longer fits); copied into every passage, so the
/// audio thread reads it without allocating.
package struct Rhythm: Hashable, Sendable, BitwiseCopyable {
    /// `--pattern`; nil: the bell on beat 1 and accents where additive groups start.
    package var pattern: BeatPattern?
    package var subdivision = Subdivision.none
    package var polyrhythm: Polyrhythm?
    /// Bars before bar 1, numbered -N to -1, played at `countInLevel`.
    package var countInBars: Int64 = 0
    package var muting = BeatMuting.none
    /// `--subdivision-volume`: the level of the clicks between beats, 0 to 1.
    package var subdivisionLevel: Float = 1

    /// The bell's level on the first beat of a group that is not the first of the bar.
    package static let accentLevel: Float = 0.5
    /// The level of the count-in: 6 dB under the bars that follow.
    package static let countInLevel: Float = 0.5
    package static let plain = Rhythm()

    package init() {}

    /// The level a sound of this kind plays at (before the volume).
    @inline(__always)
    package func level(of sound: ClickSound, bar: Int64) -> Float {
        let kind: Float = switch sound {
        case .accent: Self.accentLevel
        case .subdivision: subdivisionLevel
        case .bell, .beat, .polyrhythm: 1
        }
        return bar < 0 ? kind * Self.countInLevel : kind
    }
}

/// What a started click plays.
package enum ClickSound: UInt8, Sendable, BitwiseCopyable, CustomStringConvertible {
    /// The first beat of a bar, or an `X` of a pattern.
    case bell
    /// The first beat of a later group of an additive meter: the bell, softer.
    case accent
    case beat
    /// A click between beats (`--subdivide`).
    case subdivision
    /// A click of the second voice (`--polyrhythm`).
    case polyrhythm

    /// The trace's name for it.
    package var description: String {
        switch self {
        case .bell: "bell"
        case .accent: "accent"
        case .beat: "beat"
        case .subdivision: "sub"
        case .polyrhythm: "poly"
        }
    }

    /// Whether it is a beat of the main voice (not a subdivision or the second voice).
    package var isBeat: Bool { self == .bell || self == .accent || self == .beat }
}
