import Glibc
import MetronomeSupport

/// OSC's time: an NTP timestamp, seconds since 1900 in the high 32 bits and
/// the fraction of a second in the low 32, as a bundle's timetag carries it.
package enum OSCTime {
    /// Seconds from 1900 (NTP's epoch) to 1970 (Unix's).
    package static let unixEpochInNTP: UInt64 = 2_208_988_800

    /// The NTP timestamp of `nanoseconds` since the Unix epoch, the fraction rounded to the nearest 2⁻³² s.
    package static func ntp(unixNanoseconds nanoseconds: Int64) -> UInt64 {
        let seconds = UInt64(nanoseconds / 1_000_000_000) + unixEpochInNTP
        let rest = UInt64(nanoseconds % 1_000_000_000)
        // rest < 10⁹ < 2³⁰: rest · 2³² < 2⁶², no overflow.
        let fraction = ((rest << 32) + 500_000_000) / 1_000_000_000
        return (seconds << 32) + fraction
    }

    /// The NTP timestamp of monotonic `instant` on the system's wall clock as it stands now
    /// (`CLOCK_REALTIME` and `CLOCK_MONOTONIC` read together).
    package static func ntp(of instant: MonotonicInstant) -> UInt64 {
        var wall = timespec(), monotonic = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        let now = Int64(monotonic.tv_sec) * 1_000_000_000 + Int64(monotonic.tv_nsec)
        let wallNow = Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)
        return ntp(unixNanoseconds: wallNow + (instant.nanoseconds - now))
    }
}
