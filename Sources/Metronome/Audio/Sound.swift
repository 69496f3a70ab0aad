import Glibc

/// A mono sound at a known rate: what one click plays.
public struct Sound: Sendable, Equatable {
    public let samples: [Float]
    public let rate: SampleRate

    public init(samples: [Float], rate: SampleRate) {
        self.samples = samples
        self.rate = rate
    }

    /// The largest absolute sample value.
    public var peak: Float { samples.reduce(0) { max($0, abs($1)) } }

    /// The sound at another rate, converted with libsamplerate.
    public func converted(to target: SampleRate) throws(MetronomeError) -> Sound {
        guard target != rate else { return self }
        return Sound(samples: try Resampler.convert(samples, from: rate.framesPerSecond, to: target.framesPerSecond), rate: target)
    }

    /// Loads any file libsndfile reads, downmixes it to mono (the mean of the
    /// channels) and converts it to `rate`.
    ///
    /// Throws a `noInput` error (exit 66) naming the file when it is missing,
    /// unreadable, not audio, or holds no frames.
    public static func load(contentsOf path: String, rate target: SampleRate) throws(MetronomeError) -> Sound {
        if access(path, F_OK) != 0 {
            throw MetronomeError(.noInput, "sound file '\(path)' does not exist")
        }
        if access(path, R_OK) != 0 {
            throw MetronomeError(.noInput, "sound file '\(path)' cannot be read: \(String(cString: strerror(errno)))")
        }
        var isDirectory = stat()
        if stat(path, &isDirectory) == 0, (isDirectory.st_mode & S_IFMT) == S_IFDIR {
            throw MetronomeError(.noInput, "sound file '\(path)' is a directory")
        }
        let file: SoundFile
        do {
            file = try SoundFile.open(reading: path)
        } catch {
            throw MetronomeError(.noInput, "sound file '\(path)' is not audio libsndfile can read: \(error.message)")
        }
        guard file.frames > 0, file.channels > 0 else {
            throw MetronomeError(.noInput, "sound file '\(path)' holds no audio")
        }
        guard file.rate > 0 else {
            throw MetronomeError(.noInput, "sound file '\(path)' has an invalid sample rate \(file.rate)")
        }
        let sourceRate = SampleRate(unchecked: file.rate)
        let channels = file.channels
        var interleaved = [Float](repeating: 0, count: Int(file.frames) * channels)
        var framesRead = 0
        do {
            framesRead = try interleaved.withUnsafeMutableBufferPointer { buffer throws(SoundFileError) in
                try file.read(into: buffer.baseAddress!, frames: Int(file.frames))
            }
        } catch {
            throw MetronomeError(.noInput, "sound file '\(path)' cannot be read: \(error.message)")
        }
        guard framesRead > 0 else {
            throw MetronomeError(.noInput, "sound file '\(path)' holds no audio")
        }
        var mono = [Float](repeating: 0, count: framesRead)
        let scale = 1 / Float(channels)
        for frame in 0..<framesRead {
            var sum: Float = 0
            for channel in 0..<channels { sum += interleaved[frame * channels + channel] }
            mono[frame] = sum * scale
        }
        return try Sound(samples: mono, rate: sourceRate).converted(to: target)
    }
}

extension Sound {
    /// Writes the sound as a mono file in `format` (the container from the
    /// path's extension), replacing any file there.
    public func write(to path: String, format: OutputFormat) throws(MetronomeError) {
        let file: SoundFile
        do {
            file = try SoundFile.create(writing: path, format: format.libsndfileFormat(frames: Int64(samples.count)),
                                         channels: 1, rate: rate.framesPerSecond)
            try samples.withUnsafeBufferPointer { buffer throws(SoundFileError) in
                if let base = buffer.baseAddress { try file.write(base, frames: buffer.count) }
            }
            try file.close()
        } catch {
            throw MetronomeError(.cannotCreate, "cannot write '\(path)': \(error.message)")
        }
    }
}
