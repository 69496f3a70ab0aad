import Glibc
import MetronomeSupport

/// A one-line progress bar on stderr, shown only on a terminal and only once
/// a render has run for a second.
struct ProgressBar {
    private let total: Int64
    private let started: Double
    private var lastDrawn: Double = 0
    private var shown = false
    private let enabled: Bool

    init(total: Int64) {
        self.total = max(total, 1)
        started = MonotonicClock.seconds()
        enabled = isatty(STDERR_FILENO) == 1
    }

    /// How long a draw may wait for a terminal that is slow to read, in milliseconds.
    static let wait: Int32 = 100

    mutating func update(done: Int64) {
        guard enabled else { return }
        let now = MonotonicClock.seconds()
        guard now - started >= 1, now - lastDrawn >= 0.1 else { return }
        lastDrawn = now
        shown = true
        let fraction = Double(done) / Double(total)
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = "\rrendering [\(bar)] \(Int(fraction * 100))%"
        // Whole or not at all: a short write would leave half a bar; a stalled terminal is not waited on long.
        _ = BoundedWrite.write(STDERR_FILENO, Array(line.utf8), waitingAtMost: Self.wait)
    }

    func finish() {
        guard shown else { return }
        let clear = "\r\u{1B}[K"
        _ = BoundedWrite.write(STDERR_FILENO, Array(clear.utf8), waitingAtMost: Self.wait)
    }
}
