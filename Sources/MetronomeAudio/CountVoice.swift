import Glibc
import MetronomeTiming

/// The spoken count (`--count voice`): a word for each beat, "one" to
/// "sixteen" by its place in the bar, and with `--count voice-subdivided`
/// "and", "e" and "a" on the clicks between beats; each word with its onset,
/// so that the onset, not the file's first sample, falls on the click's frame.
///
/// The onset is the contract: the first sample at which the word's RMS over
/// the millisecond ending there reaches −20 dB of its loudest millisecond's.
package struct CountVoice: Sendable {
    /// A word of the count; the raw value is its place in `sounds`.
    package enum Word: Int, CaseIterable, Sendable {
        case one, two, three, four, five, six, seven, eight, nine, ten, eleven, twelve, thirteen, fourteen, fifteen, sixteen
        case and, e, a

        /// The highest number spoken: a bar of more beats has its later ones unspoken.
        package static let highestNumber = 16

        /// The number `number` (1 to 16), or nil.
        package static func number(_ number: Int64) -> Word? {
            (1...Int64(highestNumber)).contains(number) ? Word(rawValue: Int(number) - 1) : nil
        }

        /// The word spoken on click `index` (1 to N−1) between beats of N clicks:
        /// "and" of two, "and a" of three, "e and a" of four; nil for other subdivisions.
        package static func between(index: Int, of clicksPerBeat: Int) -> Word? {
            switch (clicksPerBeat, index) {
            case (2, 1), (3, 1), (4, 2): .and
            case (3, 2), (4, 3): .a
            case (4, 1): .e
            default: nil
            }
        }

        /// The word written: a MIDI file's lyric.
        package var text: String {
            ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
             "thirteen", "fourteen", "fifteen", "sixteen", "and", "e", "a"][rawValue]
        }

        /// The word of click `index` (0 the beat itself, 1 to N−1 between) of
        /// beat `beat` of bar `bar`, nil where none is spoken: the beat's place in
        /// the bar; in a count-in's bars before its last, a bandleader's count at
        /// half speed ("one — two —"), every other beat and the clicks between unspoken.
        @inline(__always)
        package static func spoken(bar: Int64, beat: Int64, index: Int, clicksPerBeat: Int, subdivided: Bool) -> Word? {
            let halfSpeed = bar < -1
            if index == 0 { return halfSpeed ? (beat % 2 == 0 ? number(beat / 2 + 1) : nil) : number(beat + 1) }
            return subdivided && !halfSpeed ? between(index: index, of: clicksPerBeat) : nil
        }

        /// The word spoken for a started click (nil: none); `clicksPerBeat`: its beat's subdivision.
        package static func spoken(for click: StartedClick, clicksPerBeat: Int, subdivided: Bool) -> Word? {
            switch click.sound {
            case .bell, .accent, .beat, .subdivision:
                spoken(bar: click.bar, beat: Int64(click.beatInBar), index: click.sound == .subdivision ? Int(click.index) : 0,
                       clicksPerBeat: clicksPerBeat, subdivided: subdivided)
            case .polyrhythm: nil
            }
        }

        /// The file a folder of one's own words holds it in (`--voice DIR`): `1.wav` … `16.wav`, `and.wav`, `e.wav`, `a.wav`.
        package var fileName: String {
            switch self {
            case .and: "and.wav"
            case .e: "e.wav"
            case .a: "a.wav"
            default: "\(rawValue + 1).wav"
            }
        }
    }

    /// Each word's sound, in `Word` order, at the track's rate.
    package let sounds: [Sound]
    /// Each word's onset, in frames from its first sample.
    package let onsets: [Int64]
    /// Whether the clicks between beats are spoken too (`voice-subdivided`).
    package let subdivided: Bool

    package init(sounds: [Sound], subdivided: Bool) {
        precondition(sounds.count == Word.allCases.count, "a count needs every word")
        self.sounds = sounds
        self.onsets = sounds.map { Int64(Self.onset(of: $0.samples, rate: $0.rate)) }
        self.subdivided = subdivided
    }

    /// The words of `folder` at `rate`: the built-in voice when nil.
    /// A word missing or not audio is an `.unreadable` error naming its file (exit 66).
    package static func load(folder: String?, subdivided: Bool, rate: SampleRate,
                             betweenPieces: () -> Void = {}) throws(SoundError) -> CountVoice {
        let base: String
        if let folder { base = folder } else { base = try SoundLibrary.builtIn("voice") }
        if let folder {
            var status = stat()
            guard stat(folder, &status) == 0 else { throw SoundError(.unreadable, "voice folder '\(folder)' does not exist") }
            guard (status.st_mode & S_IFMT) == S_IFDIR else { throw SoundError(.unreadable, "voice folder '\(folder)' is not a folder") }
        }
        var sounds: [Sound] = []
        for word in Word.allCases {
            let sound = try Sound.load(contentsOf: "\(base)/\(word.fileName)", rate: rate, betweenPieces: betweenPieces)
            guard sound.samples.contains(where: { $0 != 0 }) else {
                throw SoundError(.unreadable, "sound file '\(base)/\(word.fileName)' is silent: a word of the count must be heard")
            }
            sounds.append(sound)
        }
        return CountVoice(sounds: sounds, subdivided: subdivided)
    }

    /// The frames of one millisecond's window at `rate`, rounded (44 at 44.1 kHz).
    package static func window(at rate: SampleRate) -> Int {
        max(1, Int((rate.framesPerSecond + 500) / 1_000))
    }

    /// The onset of `samples` by the contract: the first sample at which the
    /// RMS over the window of one millisecond ending there (silence before the
    /// first sample) reaches −20 dB of the loudest such window's. 0 for silence.
    ///
    /// Sums of squares in Double over a window, each summed afresh from its
    /// prefix sums' difference: −20 dB is a hundredth of the loudest power.
    package static func onset(of samples: [Float], rate: SampleRate) -> Int {
        let window = window(at: rate)
        var prefix = [Double](repeating: 0, count: samples.count + 1)
        for (index, sample) in samples.enumerated() { prefix[index + 1] = prefix[index] + Double(sample) * Double(sample) }
        func power(endingAt index: Int) -> Double { prefix[index + 1] - prefix[max(0, index + 1 - window)] }
        var loudest = 0.0
        for index in samples.indices { loudest = max(loudest, power(endingAt: index)) }
        guard loudest > 0 else { return 0 }
        return samples.indices.first { power(endingAt: $0) * 100 >= loudest } ?? 0
    }
}
