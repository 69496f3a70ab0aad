/// A length of time given on the command line: `90`, `90s`, `10m`, `1h30m`, `2.5m`.
///
/// Held exactly in nanoseconds, so `round(T * R)` frames is an integer computation.
package struct Playtime: Hashable, Sendable, CustomStringConvertible {
    package let nanoseconds: Int64

    package init?(nanoseconds: Int64) {
        guard nanoseconds > 0 else { return nil }
        self.nanoseconds = nanoseconds
    }

    package init(seconds: Int64) {
        precondition(seconds > 0)
        nanoseconds = seconds * 1_000_000_000
    }

    /// Parses a bare number of seconds or parts with units `h`, `m`, `s` in that
    /// order, each at most once: `45`, `2.5m`, `1h30m`, `1m30.5s`.
    package init(parsing text: String) throws(TimingError) {
        let invalid = TimingError.invalid(
            "duration '\(text)' is not valid: use seconds or h/m/s parts greater than zero, e.g. 90, 90s, 10m, 1h30m, 2.5m")
        let trimmed = text.trimmingSpaces
        let units: [(Character, Int64)] = [("h", 3600), ("m", 60), ("s", 1)]
        var total: Int64 = 0
        var rest = Substring(trimmed)
        var nextUnit = 0
        guard !rest.isEmpty else { throw invalid }
        while !rest.isEmpty {
            let numberEnd = rest.firstIndex(where: { !($0.isASCII && ($0.isNumber || $0 == ".")) }) ?? rest.endIndex
            guard let value = ExactDecimal(rest[rest.startIndex..<numberEnd]) else { throw invalid }
            var unitSeconds: Int64 = 1
            if numberEnd == rest.endIndex {
                // A bare number is seconds, and only on its own.
                guard nextUnit == 0 else { throw invalid }
                rest = rest[numberEnd...]
            } else {
                let unit = rest[numberEnd]
                guard let index = units.firstIndex(where: { $0.0 == unit }), index >= nextUnit else { throw invalid }
                unitSeconds = units[index].1
                nextUnit = index + 1
                rest = rest[rest.index(after: numberEnd)...]
            }
            guard let nanos = value.scaled(toPlaces: 9) else { throw invalid }
            let (part, overflow) = nanos.multipliedReportingOverflow(by: unitSeconds)
            guard !overflow else { throw invalid }
            let (sum, sumOverflow) = total.addingReportingOverflow(part)
            guard !sumOverflow else { throw invalid }
            total = sum
        }
        guard let playtime = Playtime(nanoseconds: total) else { throw invalid }
        self = playtime
    }

    /// `round(T * R)`: the frames this time lasts at `rate`, halves rounded up.
    package func frames(at rate: SampleRate) -> Int64 {
        Int64(ExactArithmetic.floorMultiplyAdd(UInt64(nanoseconds), UInt64(rate.framesPerSecond),
                                               plus: 500_000_000, dividedBy: 1_000_000_000))
    }

    package var description: String {
        let seconds = nanoseconds / 1_000_000_000
        let fraction = nanoseconds % 1_000_000_000
        return fraction == 0 ? "\(seconds)s" : "\(Double(nanoseconds) / 1e9)s"
    }
}
