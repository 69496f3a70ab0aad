import MetronomeAudio

extension Sound {
    /// Writes the sound as a mono file in `format` (the container from the
    /// path's extension), replacing any file there.
    package func write(to path: String, format: OutputFormat) throws(SoundError) {
        let file: SoundFile
        do {
            file = try SoundFile.create(writing: path, format: format.libsndfileFormat(frames: Int64(samples.count)),
                                         channels: 1, rate: rate.framesPerSecond)
            try samples.withUnsafeBufferPointer { buffer throws(SoundFileError) in
                if let base = buffer.baseAddress { try file.write(base, frames: buffer.count) }
            }
            try file.close()
        } catch {
            throw SoundError(.unwritable, "cannot write '\(path)': \(error.message)")
        }
    }
}
