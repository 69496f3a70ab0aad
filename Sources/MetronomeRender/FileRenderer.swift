import Glibc
import MetronomeAudio
import SystemPackage

/// Renders a finite click track into a sound file.
///
/// Written under a temporary name beside the target and renamed over it only
/// once complete: an interrupted or failed render leaves nothing behind.
package struct FileRenderer {
    package static let blockFrames = 65_536

    package let path: String
    package let format: OutputFormat
    /// Replace an existing read-only file (`--force`).
    package let force: Bool

    package init(path: String, format: OutputFormat, force: Bool = false) {
        self.path = path
        self.format = format
        self.force = force
    }

    /// Why a render stopped before the end.
    package enum Interruption: Error, Equatable {
        /// A signal (SIGINT, SIGTERM) arrived; the number is the signal's.
        case signal(Int32)
    }

    /// Renders every frame of `track` (which must be finite); returns the frames rendered.
    ///
    /// `created` runs once the temporary file exists; what else the render
    /// writes is opened there, so a render that cannot create its file touches
    /// nothing. `interrupted` is asked between blocks and once before the file
    /// is kept; a signal number (or an error) removes the temporary file and
    /// throws `Interruption` (or the error). `expectedFrames` sizes the file while
    /// the track's end is unknown (a tempo map's is known once its last passage plays).
    package func render(_ track: ClickTrack, expectedFrames: Int64? = nil,
                       interrupted: () throws -> Int32? = { nil }, created: () throws -> Void = {}) throws -> Int64 {
        guard let endFrame = track.endFrame ?? expectedFrames else {
            throw RenderError.badRequest("--output needs a length: add --bars N or --duration T")
        }
        try format.check(frames: endFrame, path: path)
        let target = OutputTarget(path: path)
        try target.checkReplaceable(force: force)
        if let bytes = format.dataBytes(frames: endFrame) { try target.checkRoom(for: bytes) }
        let temporary = try TemporaryFile(beside: path)
        var keep = false
        defer { if !keep { temporary.remove() } }
        try created()

        let file: SoundFile
        do {
            file = try SoundFile.create(descriptor: temporary.descriptor, format: format.libsndfileFormat(frames: endFrame),
                                        channels: 1, rate: track.schedule.rate.framesPerSecond)
        } catch {
            throw RenderError(.cannotCreate, "cannot write '\(path)': \(error.message)")
        }

        let floats = UnsafeMutablePointer<Float>.allocate(capacity: Self.blockFrames)
        let shorts = UnsafeMutablePointer<Int16>.allocate(capacity: Self.blockFrames)
        defer { floats.deallocate(); shorts.deallocate() }
        var progress = ProgressBar(total: endFrame)

        defer { progress.finish() }
        errno = 0
        do {
            while true {
                if let signal = try interrupted() { throw Interruption.signal(signal) }
                if track.isFinished { break }
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
            // libsndfile says "Unspecified internal error" where the disk said more.
            let diskFailed = [ENOSPC, EDQUOT, EIO, EFBIG].contains(errno)
            throw RenderError(.writeFailed, "cannot write '\(path)': \(diskFailed ? Errno(rawValue: errno).description : error.message)")
        }
        try temporary.commit(as: path)
        keep = true
        return track.position
    }
}
