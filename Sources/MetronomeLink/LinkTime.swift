import MetronomeSupport

/// A point on Ableton Link's clock, in whole microseconds: `Link::clock().micros()`,
/// which on Linux is `CLOCK_MONOTONIC_RAW`.
///
/// The engine's own instants are on `CLOCK_MONOTONIC` (ALSA's status stamps,
/// `MonotonicInstant`): the two run at rates NTP may set apart by up to
/// 500 ppm, so an instant crosses over through a reading of both clocks taken
/// together, close to it.
package struct LinkTime: Comparable, Hashable, Sendable {
    package let micros: Int64

    package init(micros: Int64) {
        self.micros = micros
    }

    /// The Link time of `instant`, given that Link's clock read `linkNow` when
    /// the monotonic clock read `monotonicNow`: the distance between the two
    /// monotonic instants carried over, to the nearest microsecond. Over the
    /// few milliseconds between a status stamp and now, the rates' difference
    /// is a few nanoseconds.
    package init(_ instant: MonotonicInstant, monotonicNow: MonotonicInstant, linkNow: LinkTime) {
        let before = monotonicNow.nanoseconds - instant.nanoseconds
        let rounded = before >= 0 ? (before + 500) / 1_000 : -((-before + 500) / 1_000)
        micros = linkNow.micros - rounded
    }

    package static func < (lhs: LinkTime, rhs: LinkTime) -> Bool { lhs.micros < rhs.micros }
}
