/// A voice of the click track, as `--jack-ports split` gives each a port of
/// its own: the bell (each bar's first beat, an additive meter's accents, a
/// pattern's `X`: every click that plays the bell sound), the other beats,
/// the subdivisions, and a polyrhythm's second voice.
///
/// The raw value is the voice's slot in the track's mixer and its port's
/// place in `JackConnectionPlan`'s order.
package enum ClickVoice: Int, CaseIterable, Sendable {
    case bell, beat, subdivision, polyrhythm

    /// The JACK port's short name (`metronome:bell`).
    package var portName: String {
        switch self {
        case .bell: "bell"
        case .beat: "beat"
        case .subdivision: "sub"
        case .polyrhythm: "poly"
        }
    }
}

/// A period rendered by voice: one buffer a `ClickVoice`, each at least as
/// long as the period. Summed, they are the mono render's buffer.
package struct VoiceBuffers {
    package var bell: UnsafeMutablePointer<Float>
    package var beat: UnsafeMutablePointer<Float>
    package var subdivision: UnsafeMutablePointer<Float>
    package var polyrhythm: UnsafeMutablePointer<Float>

    package init(bell: UnsafeMutablePointer<Float>, beat: UnsafeMutablePointer<Float>,
                 subdivision: UnsafeMutablePointer<Float>, polyrhythm: UnsafeMutablePointer<Float>) {
        self.bell = bell
        self.beat = beat
        self.subdivision = subdivision
        self.polyrhythm = polyrhythm
    }

    /// The buffer of `voice`.
    @inline(__always)
    package subscript(voice: ClickVoice) -> UnsafeMutablePointer<Float> {
        switch voice {
        case .bell: bell
        case .beat: beat
        case .subdivision: subdivision
        case .polyrhythm: polyrhythm
        }
    }

    /// The buffer of the mixer's slot `slot` (a `ClickVoice`'s raw value;
    /// after them the spoken count's words, `CountVoice.Word` order: the
    /// numbers into the beat's buffer, "and", "e" and "a" into the subdivisions').
    @inline(__always)
    package subscript(slot slot: Int) -> UnsafeMutablePointer<Float> {
        switch slot {
        case 0: bell
        case 1: beat
        case 2: subdivision
        case 3: polyrhythm
        case 4..<(4 + CountVoice.Word.highestNumber): beat
        default: subdivision
        }
    }

    /// Each buffer from frame `frames` on.
    package func advanced(by frames: Int) -> VoiceBuffers {
        VoiceBuffers(bell: bell + frames, beat: beat + frames, subdivision: subdivision + frames, polyrhythm: polyrhythm + frames)
    }

    /// Sets frames `0..<count` of every buffer to `value`.
    package func update(repeating value: Float, count: Int) {
        bell.update(repeating: value, count: count)
        beat.update(repeating: value, count: count)
        subdivision.update(repeating: value, count: count)
        polyrhythm.update(repeating: value, count: count)
    }

    /// Frame `index` of the four summed: what the mono render has there.
    @inline(__always)
    package func sum(at index: Int) -> Float {
        bell[index] + beat[index] + subdivision[index] + polyrhythm[index]
    }
}
