// Generates the metronome's own sounds: `swift run make-sounds [DIRECTORY]`
// writes beat.wav, bell.wav, sub.wav and poly.wav (mono, 48 kHz, 16-bit;
// peak -3 dBFS, the subdivision tick -12 dBFS) into DIRECTORY (default: Sounds). The noise is seeded, so the output is the same
// on every run.
import Glibc
import MetronomeAudio
import MetronomeRender
import MetronomeSession

let rate = 48_000.0
let headroomPeak: Float = 0.708  // -3 dBFS

/// A deterministic noise source (64-bit LCG), uniform in -1...1.
struct Noise {
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(Int64(bitPattern: state) >> 11) / Double(1 << 52)
    }
}

/// A two-pole resonator: rings at `frequency` Hz, decaying with `bandwidth` Hz.
struct Resonator {
    private let a1: Double, a2: Double, gain: Double
    private var y1 = 0.0, y2 = 0.0
    init(frequency: Double, bandwidth: Double) {
        let r = exp(-Double.pi * bandwidth / rate)
        a1 = 2 * r * cos(2 * Double.pi * frequency / rate)
        a2 = -r * r
        gain = 1 - r
    }
    mutating func process(_ x: Double) -> Double {
        let y = gain * x + a1 * y1 + a2 * y2
        y2 = y1
        y1 = y
        return y
    }
}

func normalised(_ samples: [Double], peak target: Float = headroomPeak) -> [Float] {
    let peak = samples.reduce(0) { max($0, abs($1)) }
    return samples.map { Float($0 / peak) * target }
}

/// A dry mechanical tick: a noise burst through broad, heavily damped
/// resonances (no steady pitch), gone in 40 ms.
func beat() -> [Float] {
    tick(body: [Resonator(frequency: 1_900, bandwidth: 900), Resonator(frequency: 3_300, bandwidth: 1_400),
                Resonator(frequency: 5_600, bandwidth: 2_500)],
         seconds: 0.040, strike: (level: 0.35, decay: 0.0015), decay: 0.006)
}

/// Noise struck through resonators and dying fast: the beat's tick and the
/// subdivision's. The last 96 samples fade to silence.
func tick(body: [Resonator], seconds: Double, strike: (level: Double, decay: Double), decay: Double,
          peak: Float = headroomPeak) -> [Float] {
    var noise = Noise()
    var body = body
    let count = Int(seconds * rate)
    var samples = [Double](repeating: 0, count: count)
    for n in 0..<count {
        let t = Double(n) / rate
        let excitation = noise.next() * exp(-t / strike.decay)
        var sum = excitation * strike.level
        for index in body.indices { sum += body[index].process(excitation) }
        let tail = n > count - 96 ? Double(count - n) / 96 : 1
        samples[n] = sum * exp(-t / decay) * tail
    }
    return normalised(samples, peak: peak)
}

/// A small bell: inharmonic partials, the high ones dying first, and a short
/// strike; 0.9 s long, faded to silence at the end.
func bell() -> [Float] {
    let fundamental = 1_046.5  // C6, clear over the tick
    let partials: [(ratio: Double, level: Double, decay: Double)] = [
        (0.5, 0.35, 0.55), (1.0, 1.0, 0.42), (1.183, 0.55, 0.30), (1.506, 0.45, 0.22),
        (2.0, 0.40, 0.18), (2.514, 0.25, 0.12), (2.662, 0.20, 0.10), (3.011, 0.15, 0.08),
    ]
    var noise = Noise()
    let count = Int(0.9 * rate)
    var samples = [Double](repeating: 0, count: count)
    for n in 0..<count {
        let t = Double(n) / rate
        var sum = 0.0
        for partial in partials {
            sum += partial.level * exp(-t / partial.decay) * sin(2 * Double.pi * fundamental * partial.ratio * t)
        }
        sum += noise.next() * 0.6 * exp(-t / 0.002)
        let fade = n > count - 960 ? Double(count - n) / 960 : 1
        samples[n] = sum * fade
    }
    return normalised(samples)
}

/// The subdivision tick: lighter and higher than the beat, gone in 20 ms,
/// 9 dB under it, so the beats stay in front.
func subdivision() -> [Float] {
    tick(body: [Resonator(frequency: 4_200, bandwidth: 1_800), Resonator(frequency: 7_000, bandwidth: 3_000)],
         seconds: 0.020, strike: (level: 0.25, decay: 0.0008), decay: 0.003, peak: 0.251)  // -12 dBFS
}

/// The second voice of a polyrhythm: a woodblock, a short pitched knock
/// (two partials near 800 Hz) that stands apart from tick and bell; 80 ms.
func polyrhythm() -> [Float] {
    var noise = Noise()
    let count = Int(0.080 * rate)
    var samples = [Double](repeating: 0, count: count)
    for n in 0..<count {
        let t = Double(n) / rate
        var sum = sin(2 * Double.pi * 784 * t) * exp(-t / 0.018) + 0.5 * sin(2 * Double.pi * 2_140 * t) * exp(-t / 0.008)
        sum += noise.next() * 0.3 * exp(-t / 0.001)
        let tail = n > count - 240 ? Double(count - n) / 240 : 1
        samples[n] = sum * tail
    }
    return normalised(samples)
}

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Sounds"
do {
    let format = try OutputFormat(path: "x.wav", sampleFormat: .pcm16)
    try Sound(samples: beat(), rate: .standard).write(to: "\(directory)/beat.wav", format: format)
    try Sound(samples: bell(), rate: .standard).write(to: "\(directory)/bell.wav", format: format)
    try Sound(samples: subdivision(), rate: .standard).write(to: "\(directory)/sub.wav", format: format)
    try Sound(samples: polyrhythm(), rate: .standard).write(to: "\(directory)/poly.wav", format: format)
    print("wrote beat.wav, bell.wav, sub.wav and poly.wav in \(directory)")
} catch {
    StandardError.report("\(error)", program: "make-sounds")
    exit(1)
}
