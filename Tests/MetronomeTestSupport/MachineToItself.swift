import Glibc

/// A test that loads both cores on purpose asks for the machine to itself while it lives.
///
/// When `METRONOME_QUIET_FILE` names a file (CI sets it for `scripts/test`), the request is
/// that file, and whoever runs work beside the tests (CI's idle builds) stops it and answers
/// with the file `FILE.held`; the request waits up to 5 s for that answer. Without the
/// variable, nothing runs beside the tests and the request is nothing.
package final class MachineToItself {
    private let file: String?

    package init() {
        guard let file = getenv("METRONOME_QUIET_FILE").map({ String(cString: $0) }), !file.isEmpty else {
            self.file = nil
            return
        }
        self.file = file
        close(open(file, O_WRONLY | O_CREAT, 0o644))
        if !waitUntil(seconds: 5, every: .milliseconds(20), { access("\(file).held", F_OK) == 0 }) {
            print("MachineToItself: no answer at \(file).held within 5 s; going on")
        }
    }

    deinit {
        if let file { unlink(file) }
    }
}
