import CSndFile
import Glibc

/// A sound file's bytes held in memory, read by libsndfile through its
/// virtual I/O (`SF_VIRTUAL_IO`): for input that cannot seek (a pipe, a
/// FIFO), which some of libsndfile's decoders (Ogg) would otherwise crash on.
final class SoundBytes {
    let bytes: [UInt8]
    var position: Int64 = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The callbacks, each finding this object through `user_data`.
    static let callbacks = SF_VIRTUAL_IO(
        get_filelen: { data in Int64(SoundBytes.from(data).bytes.count) },
        seek: { offset, whence, data in
            let file = SoundBytes.from(data)
            let base: Int64 = switch whence {
            case SEEK_CUR: file.position
            case SEEK_END: Int64(file.bytes.count)
            default: 0
            }
            let target = base + offset
            guard target >= 0, target <= Int64(file.bytes.count) else { return -1 }
            file.position = target
            return target
        },
        read: { buffer, count, data in
            let file = SoundBytes.from(data)
            let available = max(0, min(count, Int64(file.bytes.count) - file.position))
            guard available > 0, let buffer else { return 0 }
            file.bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: source.baseAddress! + Int(file.position), byteCount: Int(available))
            }
            file.position += available
            return available
        },
        write: { _, _, _ in 0 },
        tell: { data in SoundBytes.from(data).position }
    )

    private static func from(_ data: UnsafeMutableRawPointer?) -> SoundBytes {
        Unmanaged<SoundBytes>.fromOpaque(data!).takeUnretainedValue()
    }
}
