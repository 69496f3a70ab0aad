import Foundation
import Glibc
import Testing
import MetronomeTiming
import MetronomeAudio
import MetronomeRender

/// A fresh directory under /tmp, removed with everything in it on deinit.
package final class TemporaryDirectory {
    package let path: String

    package init() {
        var template = Array("/tmp/metronome-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: made!)
    }

    package func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Names in the directory, hidden ones included.
    package func contents() -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Removes the directory and everything in it, folders a test made in it too.
    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Reads every frame of a sound file, interleaved, with libsndfile.
package func readSoundFile(_ path: String) throws -> (samples: [Float], channels: Int, rate: Int64, format: Int32) {
    let file = try SoundFile.open(reading: path)
    var samples = [Float](repeating: 0, count: Int(file.frames) * file.channels)
    let read = try samples.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, frames: Int(file.frames)) }
    #expect(read == Int(file.frames))
    return (samples, file.channels, file.rate, file.format)
}

/// Impulse sounds: a beat of one sample at +0.25 and a bell of one sample at
/// -0.75, so every click is one nonzero sample that says which it was.
package func impulseSounds(rate: SampleRate) -> (beat: Sound, bell: Sound) {
    (Sound(samples: [0.25], rate: rate), Sound(samples: [-0.75], rate: rate))
}

/// The impulse sounds as float WAV files `beat.wav` and `bell.wav` in `directory`, for the binary's options.
package func writeImpulseSoundFiles(in directory: TemporaryDirectory, rate: SampleRate = .standard) throws -> (beat: String, bell: String) {
    let sounds = impulseSounds(rate: rate)
    let beat = directory.file("beat.wav"), bell = directory.file("bell.wav")
    try sounds.beat.write(to: beat, format: OutputFormat(path: beat, sampleFormat: .float))
    try sounds.bell.write(to: bell, format: OutputFormat(path: bell, sampleFormat: .float))
    return (beat, bell)
}

/// The frames holding a nonzero sample, with their values.
package func onsets(_ samples: [Float]) -> [(frame: Int64, value: Float)] {
    samples.enumerated().filter { $0.element != 0 }.map { (Int64($0.offset), $0.element) }
}

/// `count` frames `step` apart from `start`. Typed once here: written out as
/// `(0..<Int64(n)).map { start + $0 * step }` inside `#expect`, each took the
/// type checker up to two seconds.
package func evenFrames(_ count: Int, from start: Int64 = 0, every step: Int64) -> [Int64] {
    (0..<Int64(count)).map { start + $0 * step }
}

/// A recording that starts at an arbitrary moment, read against the grid of
/// its first click: each onset's nearest click, how far from it, and whether a bell.
package func clicksHeard(_ found: [(frame: Int64, value: Float)], from first: (frame: Int64, value: Float),
                 on schedule: ClickSchedule) -> [(click: Int64, offset: Int64, bell: Bool)] {
    let half = schedule.frame(ofClick: 1) / 2
    return found.map { onset in
        let click = schedule.firstClick(atOrAfter: onset.frame - first.frame - half)
        return (click, onset.frame - first.frame - schedule.frame(ofClick: click), onset.value < 0)
    }
}

/// A rhythm that sounds every voice and every rule a track applies (triplets,
/// a 5:4 polyrhythm and accents over 7 beats, a count-in bar, a gap and
/// random muting), for the tests that a track playing it allocates nothing.
package func everyVoiceRhythm() throws -> Rhythm {
    var rhythm = Rhythm()
    rhythm.subdivision = try Subdivision(parsingClicks: "3", swing: nil)
    rhythm.polyrhythm = try Polyrhythm(parsing: "5:4", beatsPerBar: 7)
    rhythm.pattern = try BeatPattern(parsing: "X.xXx.x", beatsPerBar: 7)
    rhythm.countInBars = 1
    rhythm.muting = try BeatMuting(gap: "3:1", randomMute: "10", seed: "1")
    return rhythm
}

/// Expects the clicks `heard` to be `clicks` in order, each on its exact
/// frame of `schedule`'s grid, a bell where the grid has one and only there.
package func expectExactClicks(_ heard: [(click: Int64, offset: Int64, bell: Bool)], _ clicks: Range<Int64>, on schedule: ClickSchedule,
                               sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(heard.map(\.click) == Array(clicks), "\(heard)", sourceLocation: sourceLocation)
    for click in heard {
        #expect(click.offset == 0, "\(click)", sourceLocation: sourceLocation)
        #expect(click.bell == schedule.isBell(click: click.click), "\(click)", sourceLocation: sourceLocation)
    }
}

/// The lines of a `--trace` file read so far, each a JSON object; a line that is none
/// (the one being written) is left out.
package func traceObjects(_ path: String) -> [[String: Any]] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

/// A whole number field of a trace line; -1 when it has none.
package func traceNumber(_ object: [String: Any], _ key: String) -> Int64 { (object[key] as? NSNumber)?.int64Value ?? -1 }
