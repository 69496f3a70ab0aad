import CAubio
import Glibc

/// aubio, loaded when the practice inspector first needs it, not at every
/// start: libaubio brings FFmpeg's codecs and some 150 shared libraries with
/// it, which a run that does not listen should not map (40 ms and 25 MB of
/// start-up). The header gives the types; each call `OnsetDetector` makes is
/// looked up once (`dlsym`) in `libaubio.so.5`, the Debian package libaubio5.
struct AubioLibrary: Sendable {
    /// The library's file name, by its ABI (the soname).
    static let fileName = "libaubio.so.5"

    /// The library, loaded once, or why it could not be.
    static let shared: Result<AubioLibrary, AubioLibraryError> = Result { () throws(AubioLibraryError) in try AubioLibrary() }

    // The calls, as aubio.h declares them (aubio_onset_t is opaque, uint_t UInt32, smpl_t Float).
    typealias NewOnset = @convention(c) (UnsafePointer<CChar>?, UInt32, UInt32, UInt32) -> OpaquePointer?
    typealias DeleteOnset = @convention(c) (OpaquePointer?) -> Void
    typealias Detect = @convention(c) (OpaquePointer?, UnsafePointer<fvec_t>?, UnsafeMutablePointer<fvec_t>?) -> Void
    typealias Delay = @convention(c) (OpaquePointer?) -> UInt32
    typealias SetFlag = @convention(c) (OpaquePointer?, UInt32) -> UInt32
    typealias SetLevel = @convention(c) (OpaquePointer?, Float) -> UInt32
    typealias NewVector = @convention(c) (UInt32) -> UnsafeMutablePointer<fvec_t>?
    typealias DeleteVector = @convention(c) (UnsafeMutablePointer<fvec_t>?) -> Void

    let newOnset: NewOnset
    let deleteOnset: DeleteOnset
    let detect: Detect
    let delay: Delay
    let setAdaptiveWhitening: SetFlag
    let setCompression: SetLevel
    let newVector: NewVector
    let deleteVector: DeleteVector

    /// Opens the library (never closed: the process keeps it to the end) and finds every call.
    private init() throws(AubioLibraryError) {
        guard let handle = dlopen(Self.fileName, RTLD_NOW | RTLD_LOCAL) else {
            throw AubioLibraryError(message: Self.lastError())
        }
        func symbol<Function>(_ name: String, as type: Function.Type) throws(AubioLibraryError) -> Function {
            guard let address = dlsym(handle, name) else { throw AubioLibraryError(message: Self.lastError()) }
            return unsafeBitCast(address, to: type)
        }
        newOnset = try symbol("new_aubio_onset", as: NewOnset.self)
        deleteOnset = try symbol("del_aubio_onset", as: DeleteOnset.self)
        detect = try symbol("aubio_onset_do", as: Detect.self)
        delay = try symbol("aubio_onset_get_delay", as: Delay.self)
        setAdaptiveWhitening = try symbol("aubio_onset_set_awhitening", as: SetFlag.self)
        setCompression = try symbol("aubio_onset_set_compression", as: SetLevel.self)
        newVector = try symbol("new_fvec", as: NewVector.self)
        deleteVector = try symbol("del_fvec", as: DeleteVector.self)
    }

    private static func lastError() -> String {
        dlerror().map { String(cString: $0) } ?? "\(fileName): cannot be loaded"
    }
}

/// aubio could not be loaded: `dlerror`'s words (the file, and why).
package struct AubioLibraryError: Error, CustomStringConvertible, Sendable {
    package let message: String
    package var description: String { message }
}
