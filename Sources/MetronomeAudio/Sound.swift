import Glibc
import MetronomeSupport
import MetronomeTiming
import SystemPackage

/// A mono sound at a known rate: what one click plays.
package struct Sound: Sendable, Equatable {
    package let samples: [Float]
    package let rate: SampleRate

    package init(samples: [Float], rate: SampleRate) {
        self.samples = samples
        self.rate = rate
    }

    /// The largest absolute sample value.
    package var peak: Float { samples.reduce(0) { max($0, abs($1)) } }

    /// The sound at another rate, converted with libsamplerate.
    package func converted(to target: SampleRate, betweenPieces: () -> Void = {}) throws(SoundError) -> Sound {
        guard target != rate else { return self }
        return Sound(samples: try Resampler.convert(samples, from: rate.framesPerSecond, to: target.framesPerSecond, betweenPieces: betweenPieces), rate: target)
    }

    /// The longest sound a click may be: longer is surely the wrong file.
    package static let longestSeconds: Int64 = 60
    /// Source rates libsamplerate can convert to every output rate (8 to 192 kHz) in one step.
    package static let readableRates: ClosedRange<Int64> = 1_000...768_000
    /// The most bytes read from a pipe or FIFO: a minute of 8-channel float audio at 192 kHz.
    static let streamLimit = 384 << 20

    /// Loads any file libsndfile reads, downmixes it to mono (the mean of the
    /// channels) and converts it to `rate`.
    ///
    /// A file that cannot serve as a click is an `.unreadable` error naming it
    /// (exit 66). A pipe or FIFO is read into memory first, never waited on for
    /// ever; a file is read for what it holds, whatever its header claims.
    package static func load(contentsOf path: String, rate target: SampleRate, betweenPieces: () -> Void = {}) throws(SoundError) -> Sound {
        func failure(_ text: String) -> SoundError { SoundError(.unreadable, "sound file '\(path)' \(text)") }
        if access(path, F_OK) != 0 { throw failure("does not exist") }
        if access(path, R_OK) != 0 { throw failure("cannot be read: \(Errno(rawValue: errno).description)") }
        var isDirectory = stat()
        if stat(path, &isDirectory) == 0, (isDirectory.st_mode & S_IFMT) == S_IFDIR { throw failure("is a directory") }
        let file: SoundFile
        do {
            if FileContents.isStream(path) {
                let bytes: [UInt8]
                do {
                    bytes = try FileContents.read(path, limit: streamLimit, whileWaiting: betweenPieces)
                } catch {
                    throw failure("cannot be read: \(error.message)")
                }
                file = try SoundFile.open(reading: SoundBytes(bytes))
            } else {
                file = try SoundFile.open(reading: path)
            }
        } catch let error as SoundError {
            throw error
        } catch let error as SoundFileError {
            throw failure("is not audio libsndfile can read: \(error.message)")
        } catch {
            throw failure("cannot be read")
        }
        guard file.channels > 0 else { throw failure("holds no audio") }
        guard readableRates.contains(file.rate) else {
            throw failure("has a sample rate of \(file.rate) Hz: use a sound at 1000 to 768000 Hz")
        }
        let sourceRate = SampleRate(unchecked: file.rate)
        let channels = file.channels
        // Read in pieces until the end: a header's length may be a guess ("unknown", or a sparse file's).
        let longest = Int(longestSeconds * file.rate)
        let piece = 16_384
        var interleaved: [Float] = []
        var buffer = [Float](repeating: 0, count: piece * channels)
        var framesRead = 0
        do {
            while true {
                let count = try buffer.withUnsafeMutableBufferPointer { buffer throws(SoundFileError) in
                    try file.read(into: buffer.baseAddress!, frames: piece)
                }
                if count == 0 { break }
                framesRead += count
                guard framesRead <= longest else {
                    throw failure("is longer than \(longestSeconds) s: a click should be short")
                }
                interleaved.append(contentsOf: buffer[0..<(count * channels)])
            }
        } catch let error as SoundError {
            throw error
        } catch let error as SoundFileError {
            throw failure("cannot be read: \(error.message)")
        } catch {
            throw failure("cannot be read")
        }
        guard framesRead > 0 else { throw failure("holds no audio") }
        guard interleaved.allSatisfy(\.isFinite) else { throw failure("holds samples that are not numbers (NaN or infinite)") }
        var mono = [Float](repeating: 0, count: framesRead)
        let scale = 1 / Float(channels)
        for frame in 0..<framesRead {
            var sum: Float = 0
            for channel in 0..<channels { sum += interleaved[frame * channels + channel] }
            mono[frame] = sum * scale
        }
        return try Sound(samples: mono, rate: sourceRate).converted(to: target, betweenPieces: betweenPieces)
    }
}
