import Glibc

/// Renders a finite click track into a sound file.
///
/// The file is written under a temporary name in the same directory and
/// renamed over the target only once complete, so an interrupted or failed
/// render leaves nothing behind.
public struct FileRenderer {
    public static let blockFrames = 65_536

    public let path: String
    public let format: OutputFormat

    public init(path: String, format: OutputFormat) {
        self.path = path
        self.format = format
    }

    /// Why a render stopped before the end.
    public enum Interruption: Error, Equatable {
        /// A signal (SIGINT, SIGTERM) arrived; the number is the signal's.
        case signal(Int32)
    }

    /// Renders every frame of `track` (which must be finite).
    ///
    /// `interrupted` is asked between blocks; when it returns a signal number
    /// the render stops, the temporary file is removed and `Interruption` is thrown.
    /// `expectedFrames` sizes the file while the track's end is still to be
    /// worked out (a tempo map's end is known once its last passage plays).
    public func render(_ track: ClickTrack, expectedFrames: Int64? = nil, interrupted: () -> Int32? = { nil }) throws -> Int64 {
        guard let endFrame = track.endFrame ?? expectedFrames else {
            throw MetronomeError.usage("--output needs a length: add --bars N or --duration T")
        }
        let temporary = try TemporaryFile(beside: path)
        var keep = false
        defer { if !keep { temporary.remove() } }

        let file: SoundFile
        do {
            file = try SoundFile.create(descriptor: temporary.descriptor, format: format.libsndfileFormat(frames: endFrame),
                                        channels: 1, rate: track.schedule.rate.framesPerSecond)
        } catch {
            throw MetronomeError(.cannotCreate, "cannot write '\(path)': \(error.message)")
        }

        let floats = UnsafeMutablePointer<Float>.allocate(capacity: Self.blockFrames)
        let shorts = UnsafeMutablePointer<Int16>.allocate(capacity: Self.blockFrames)
        defer { floats.deallocate(); shorts.deallocate() }
        var progress = ProgressBar(total: endFrame)

        do {
            while !track.isFinished {
                if let signal = interrupted() {
                    progress.finish()
                    throw Interruption.signal(signal)
                }
                let frames = track.render(into: floats, count: Self.blockFrames)
                if format.writesIntegers {
                    SampleConversion.int16(from: floats, to: shorts, count: frames)
                    try file.write(UnsafePointer(shorts), frames: frames)
                } else {
                    try file.write(UnsafePointer(floats), frames: frames)
                }
                progress.update(done: track.position)
            }
            try file.close()
        } catch let error as SoundFileError {
            progress.finish()
            throw MetronomeError(.ioError, "cannot write '\(path)': \(error.message)")
        }
        progress.finish()
        try temporary.commit(as: path)
        keep = true
        return track.position
    }
}
