import Foundation
import Testing
import MetronomeAudio
import MetronomeRender

/// The spoken count measured apart from the metronome: `Tests/Tools/count_onsets.py`
/// (Python's standard library, the onset contract summed in integers), and the
/// words and sounds its tests play.
package enum SpokenCountOracle {
    /// `Tests/Tools/count_onsets.py`.
    package static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/count_onsets.py").path
    package static let espeak = "/usr/bin/espeak-ng"

    /// What the oracle printed: each spoken span's onset less its frame, and the loudest sample of each unspoken span.
    package struct Measured: Decodable {
        package let rate: Int
        package let offsets: [Int?]
        package let unspoken: [Double]
    }

    /// A folder of words spoken by espeak-ng here (American English, its own
    /// rate: 22 050 Hz, which the metronome converts), as a teacher's own.
    package static func espeakWords(in directory: TemporaryDirectory) throws -> String {
        try #require(FileManager.default.isExecutableFile(atPath: espeak), "espeak-ng is needed: scripts/setup --test installs it")
        let folder = directory.file("voice")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                     "thirteen", "fourteen", "fifteen", "sixteen"]
        for (index, word) in words.enumerated() {
            let said = try run(espeak, ["-v", "en-us", "-s", "190", "-w", "\(folder)/\(index + 1).wav", word])
            try #require(said.status == 0, "\(said.standardError)")
        }
        for (name, text) in [("and", "and"), ("e", "ee"), ("a", "uh")] {
            let said = try run(espeak, ["-v", "en-us", "-s", "260", "-w", "\(folder)/\(name).wav", text])
            try #require(said.status == 0, "\(said.standardError)")
        }
        return folder
    }

    /// A sound of one silent sample, standing in for every click: the render holds the words alone.
    package static func silentSound(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("silent.wav")
        try Sound(samples: [0], rate: .standard).write(to: path, format: OutputFormat(path: path, sampleFormat: .float))
        return path
    }
}
