import Foundation

/// A picture the metronome drew, from a `frame` line of its `--trace`:
/// when (monotonic seconds), the audio frame it says is heard, and its angle.
package struct DrawnFrame: Sendable {
    package let time: Double
    package let audio: Int64
    package let angle: Double
}

/// The `frame` lines of a `--trace` file; throws on a line that is not JSON.
package func drawnFrames(_ trace: String) throws -> [DrawnFrame] {
    try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { line in
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              object["type"] as? String == "frame",
              let time = (object["time"] as? NSNumber)?.doubleValue, let audio = (object["audioFrame"] as? NSNumber)?.int64Value,
              let angle = (object["angle"] as? NSNumber)?.doubleValue else { return nil }
        return DrawnFrame(time: time, audio: audio, angle: angle)
    }
}

/// The straight line, fitted by least squares, of drawn frames' audio clock against their time.
package struct AudioClockLine: Sendable {
    /// Audio frames a second.
    package let slope: Double
    private let meanTime: Double, meanAudio: Double

    /// Nil for fewer than three frames.
    package init?(_ frames: [DrawnFrame]) {
        guard frames.count > 2 else { return nil }
        let n = Double(frames.count)
        meanTime = frames.map(\.time).reduce(0, +) / n
        meanAudio = frames.map { Double($0.audio) }.reduce(0, +) / n
        let (t, a) = (meanTime, meanAudio)
        slope = frames.map { ($0.time - t) * (Double($0.audio) - a) }.reduce(0, +)
            / frames.map { ($0.time - t) * ($0.time - t) }.reduce(0, +)
    }

    /// Frames `frame`'s audio clock lies ahead of the line (behind: negative).
    package func deviation(of frame: DrawnFrame) -> Double {
        Double(frame.audio) - (meanAudio + slope * (frame.time - meanTime))
    }

    /// The farthest any of `frames` lies from the line.
    package func worst(_ frames: [DrawnFrame]) -> Double {
        frames.map { abs(deviation(of: $0)) }.max() ?? .infinity
    }
}
