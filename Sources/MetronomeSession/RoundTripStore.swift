import Glibc
import MetronomeRender
import MetronomeSupport
import SystemPackage

/// The round trips `--calibrate` measured, one per pair of devices, in
/// `${XDG_CONFIG_HOME:-~/.config}/metronome/round-trips`: a line per pair,
/// `playback<TAB>input<TAB>milliseconds`, the newest replacing an older one.
package struct RoundTripStore: Sendable {
    package let path: String

    /// Where the environment puts it; nil without `XDG_CONFIG_HOME` or `HOME`.
    package init?() {
        func variable(_ name: String) -> String? {
            guard let value = getenv(name), value.pointee != 0 else { return nil }
            return String(cString: value)
        }
        guard let config = variable("XDG_CONFIG_HOME") ?? variable("HOME").map({ $0 + "/.config" }) else { return nil }
        path = config + "/metronome/round-trips"
    }

    package init(path: String) { self.path = path }

    /// The round trip saved for the pair, in milliseconds.
    package func roundTrip(playback: String, input: String) -> Double? {
        entries().last { $0.playback == playback && $0.input == input }.flatMap { Double($0.milliseconds) }
    }

    /// Saves the pair's round trip: written whole to a temporary file, renamed into place.
    package func save(_ milliseconds: Double, playback: String, input: String) throws(SessionError) {
        for name in [playback, input] where name.contains("\t") || name.contains("\n") {
            throw SessionError(.badRequest, "device name '\(name)' holds a tab or a line break: its round trip cannot be saved")
        }
        var lines = entries().filter { !($0.playback == playback && $0.input == input) }.map { "\($0.playback)\t\($0.input)\t\($0.milliseconds)" }
        lines.append("\(playback)\t\(input)\t\(milliseconds)")
        let text = Array((lines.joined(separator: "\n") + "\n").utf8)
        // The directories up to the file (those that exist are fine).
        if let failure = FilePath.makeDirectories(FilePath.directory(of: path), mode: 0o755) {
            throw SessionError(.cannotCreate, "cannot save the round trip in '\(failure.directory)': \(failure.error.description)")
        }
        do {
            let file = try TemporaryFile(beside: path)
            try file.write(text, naming: path)
            try file.commit(as: path)
        } catch {
            throw SessionError(.cannotCreate, "cannot save the round trip: \(error.message)")
        }
    }

    private func entries() -> [(playback: String, input: String, milliseconds: String)] {
        guard let bytes = try? FileContents.read(path, limit: 1 << 20) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3 else { return nil }
            return (String(fields[0]), String(fields[1]), String(fields[2]))
        }
    }
}
