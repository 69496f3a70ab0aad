/// Frames per second of the output, 8000 to 192000 Hz.
package struct SampleRate: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    package let framesPerSecond: Int64

    package static let range: ClosedRange<Int64> = 8_000...192_000
    package static let standard = SampleRate(unchecked: 48_000)
    /// The rates the schedule is tested at, the common ones of sound cards and files.
    package static let common: [Int64] = [8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000, 88_200, 96_000, 176_400, 192_000]

    /// Any positive rate, for sound files recorded outside the playable range.
    package init(unchecked framesPerSecond: Int64) {
        self.framesPerSecond = framesPerSecond
    }

    /// nil outside 8000 to 192000 Hz.
    package init?(_ framesPerSecond: Int64) {
        guard Self.range.contains(framesPerSecond) else { return nil }
        self.init(unchecked: framesPerSecond)
    }

    /// Parses `44100`; refused outside 8000 to 192000.
    package init(parsing text: String) throws(TimingError) {
        guard let value = Int64(text.trimmingSpaces), let rate = SampleRate(value) else {
            throw .invalid("rate '\(text)' is not allowed: use a whole number of Hz from 8000 to 192000, e.g. 44100")
        }
        self = rate
    }

    package var description: String { "\(framesPerSecond) Hz" }
}
