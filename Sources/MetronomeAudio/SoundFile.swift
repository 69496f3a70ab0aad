import CSndFile

/// An open sound file; owns its libsndfile handle and closes it once.
package final class SoundFile {
    private var handle: OpaquePointer?
    /// The bytes a file opened from memory reads, kept as long as the handle.
    private var source: SoundBytes?
    package let frames: Int64
    package let channels: Int
    package let rate: Int64
    /// The `SF_FORMAT_*` major and minor format of the file.
    package let format: Int32

    private init(handle: OpaquePointer, info: SF_INFO) {
        self.handle = handle
        frames = info.frames
        channels = Int(info.channels)
        rate = Int64(info.samplerate)
        format = info.format
    }

    deinit { try? close() }

    /// Opens a file for reading in any format libsndfile knows. Stands for `sf_open(path, SFM_READ, …)`.
    package static func open(reading path: String) throws(SoundFileError) -> SoundFile {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw SoundFileError(handle: nil)
        }
        return SoundFile(handle: handle, info: info)
    }

    /// Opens a file held in memory for reading. Stands for `sf_open_virtual(…, SFM_READ, …)`.
    static func open(reading bytes: SoundBytes) throws(SoundFileError) -> SoundFile {
        var info = SF_INFO()
        var callbacks = SoundBytes.callbacks
        guard let handle = sf_open_virtual(&callbacks, Int32(SFM_READ), &info, Unmanaged.passUnretained(bytes).toOpaque()) else {
            throw SoundFileError(handle: nil)
        }
        let file = SoundFile(handle: handle, info: info)
        file.source = bytes
        return file
    }

    /// Creates (or truncates) a file for writing. Stands for `sf_open(path, SFM_WRITE, …)`.
    package static func create(writing path: String, format: Int32, channels: Int, rate: Int64) throws(SoundFileError) -> SoundFile {
        var info = try writableInfo(format: format, channels: channels, rate: rate)
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw SoundFileError(handle: nil)
        }
        return SoundFile(handle: handle, info: info)
    }

    /// Writes a new file on an open descriptor, which stays the caller's to
    /// sync and close after `close()`. Stands for `sf_open_fd(fd, SFM_WRITE, …, SF_FALSE)`.
    package static func create(descriptor: Int32, format: Int32, channels: Int, rate: Int64) throws(SoundFileError) -> SoundFile {
        var info = try writableInfo(format: format, channels: channels, rate: rate)
        guard let handle = sf_open_fd(descriptor, Int32(SFM_WRITE), &info, Int32(SF_FALSE)) else {
            throw SoundFileError(handle: nil)
        }
        return SoundFile(handle: handle, info: info)
    }

    /// The `SF_INFO` for a new file, checked with `sf_format_check`.
    private static func writableInfo(format: Int32, channels: Int, rate: Int64) throws(SoundFileError) -> SF_INFO {
        var info = SF_INFO()
        info.format = format
        info.channels = Int32(channels)
        info.samplerate = Int32(rate)
        guard sf_format_check(&info) != 0 else {
            throw SoundFileError(code: 0, message: "libsndfile cannot write this format")
        }
        return info
    }

    /// Reads up to `count` frames of interleaved floats; returns the frames read. `sf_readf_float`.
    package func read(into buffer: UnsafeMutablePointer<Float>, frames count: Int) throws(SoundFileError) -> Int {
        let read = sf_readf_float(try open(), buffer, sf_count_t(count))
        if read < count, sf_error(handle) != 0 { throw SoundFileError(handle: handle) }
        return Int(read)
    }

    /// Writes `count` frames of interleaved floats. `sf_writef_float`.
    package func write(_ buffer: UnsafePointer<Float>, frames count: Int) throws(SoundFileError) {
        let written = sf_writef_float(try open(), buffer, sf_count_t(count))
        guard written == count else { throw SoundFileError(handle: handle) }
    }

    /// Writes `count` frames of interleaved 16-bit samples. `sf_writef_short`.
    package func write(_ buffer: UnsafePointer<Int16>, frames count: Int) throws(SoundFileError) {
        let written = sf_writef_short(try open(), buffer, sf_count_t(count))
        guard written == count else { throw SoundFileError(handle: handle) }
    }

    /// Flushes and closes the file; errors from the final header write are thrown. `sf_close`.
    package func close() throws(SoundFileError) {
        guard let handle else { return }
        self.handle = nil
        let code = sf_close(handle)
        if code != 0 {
            throw SoundFileError(code: code, message: String(cString: sf_error_number(code)))
        }
    }

    private func open() throws(SoundFileError) -> OpaquePointer {
        guard let handle else { throw SoundFileError(code: 0, message: "the sound file is closed") }
        return handle
    }
}
