import CSndFile

/// A libsndfile failure: its error code and `sf_strerror` message.
package struct SoundFileError: Error, CustomStringConvertible, Sendable {
    /// The libsndfile error number (`SF_ERR_*`), 0 when the failure is ours.
    package let code: Int32
    package let message: String

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The last error of `handle`, or of the last failed open when it is nil.
    /// Stands for `sf_error` and `sf_strerror`.
    init(handle: OpaquePointer?) {
        code = sf_error(handle)
        message = String(cString: sf_strerror(handle))
    }

    package var description: String { message }
}
