import Glibc

/// Silences libjack's own messages on stderr, whether ALSA's jack plugin or `JackLibrary` loaded it.
///
/// libjack prints "Cannot connect to server socket", "JackSocketClientChannel
/// read fail" and the like when the server is missing or goes away; the
/// metronome reports those failures itself, in one line.
enum JackMessages {
    private typealias SetFunction = @convention(c) (@convention(c) (UnsafePointer<CChar>?) -> Void) -> Void

    /// Replaces libjack's error and info printers with ones that print nothing, if libjack is loaded.
    static func silence() {
        guard let library = dlopen("libjack.so.0", RTLD_NOW | RTLD_NOLOAD) else { return }
        defer { dlclose(library) }
        silence(library: library)
    }

    /// Replaces the printers of the libjack `dlopen` gave as `library`.
    static func silence(library: UnsafeMutableRawPointer) {
        for name in ["jack_set_error_function", "jack_set_info_function"] {
            guard let symbol = dlsym(library, name) else { continue }
            unsafeBitCast(symbol, to: SetFunction.self)({ _ in })
        }
    }
}
