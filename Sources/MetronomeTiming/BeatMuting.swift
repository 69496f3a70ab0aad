/// The gap trainer: `--gap P:M` plays P bars and mutes M, over and over;
/// `--random-mute PCT` mutes that share of beats at random, the same ones for
/// the same `--seed`. Muted beats still count and the pendulum still swings.
///
/// Each answer is a pure function of the bar or beat number, so the audio
/// thread asks it with no state and no allocation.
package struct BeatMuting: Hashable, Sendable, BitwiseCopyable {
    package var playedBars: Int64 = 0
    package var mutedBars: Int64 = 0
    /// Beats muted at random, in hundredths of a percent (0 to 10000).
    package var randomBasisPoints: UInt64 = 0
    package var seed: UInt64 = 0

    package static let none = BeatMuting()

    package init() {}

    /// Parses `--gap`, `--random-mute` and `--seed` (nil: not given).
    package init(gap: String?, randomMute: String?, seed: String?) throws(TimingError) {
        self.init(gap: try gap.map { text throws(TimingError) in try Gap(parsing: text) },
                  randomMute: try randomMute.map { text throws(TimingError) in try RandomMute(parsing: text) },
                  seed: try seed.map { text throws(TimingError) in try Seed(parsing: text) })
    }

    /// `--gap`, `--random-mute` and `--seed`, each read alone (nil: not given).
    package init(gap: Gap?, randomMute: RandomMute?, seed: Seed?) {
        if let gap {
            playedBars = gap.played
            mutedBars = gap.muted
        }
        randomBasisPoints = randomMute?.basisPoints ?? 0
        if let seed {
            self.seed = seed.value
        } else if randomBasisPoints > 0 {
            // No seed asked for: a different choice each run.
            var generator = SystemRandomNumberGenerator()
            self.seed = generator.next()
        }
    }

    /// `--gap P:M`: play P bars, mute M, 1 to 1000 each.
    package struct Gap: Sendable, Equatable {
        package let played: Int64
        package let muted: Int64

        package init(parsing text: String) throws(TimingError) {
            let parts = text.trimmingSpaces.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let played = Int64(parts[0]), let muted = Int64(parts[1]),
                  (1...1000).contains(played), (1...1000).contains(muted) else {
                throw .invalid("gap '\(text)' is not allowed: use PLAYED:MUTED bars, 1 to 1000 each, e.g. 3:1")
            }
            self.played = played
            self.muted = muted
        }
    }

    /// `--random-mute PCT`: the share of beats muted at random, 0 to 100 percent.
    package struct RandomMute: Sendable, Equatable {
        /// Hundredths of a percent: 0 to 10000.
        package let basisPoints: UInt64

        package init(parsing text: String) throws(TimingError) {
            guard let basisPoints = ExactDecimal.parse(text, places: 2, in: 0...10_000) else {
                throw .invalid("random mute '\(text)' is not allowed: use a percentage from 0 to 100, e.g. 25")
            }
            self.basisPoints = UInt64(basisPoints)
        }
    }

    /// `--seed N`: the same seed mutes the same beats.
    package struct Seed: Sendable, Equatable {
        package let value: UInt64

        package init(parsing text: String) throws(TimingError) {
            guard let value = UInt64(text.trimmingSpaces) else {
                throw .invalid("seed '\(text)' is not allowed: use a whole number from 0 to \(UInt64.max)")
            }
            self.value = value
        }
    }

    /// Whether bar `bar` (from 0; the count-in is before 0) is a muted bar of the gap trainer.
    @inline(__always)
    package func mutes(bar: Int64) -> Bool {
        guard mutedBars > 0, bar >= 0 else { return false }
        return bar % (playedBars + mutedBars) >= playedBars
    }

    /// Whether beat `click` (every beat from 0) is muted at random.
    @inline(__always)
    package func mutesAtRandom(click: Int64) -> Bool {
        guard randomBasisPoints > 0 else { return false }
        return Self.mix(seed &+ UInt64(bitPattern: click) &* 0x9E37_79B9_7F4A_7C15) % 10_000 < randomBasisPoints
    }

    /// splitmix64's finaliser: every input bit moves every output bit.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
