/// A click of a followed transport, placed in its cycle.
package struct FollowedClick: Sendable, Equatable, BitwiseCopyable {
    /// Frames from the cycle's first frame, `0..<frames`.
    package var offset: Int
    /// The master's bar, from 1.
    package var bar: Int64
    /// The beat in its bar, from 0: 0 rings the bell.
    package var beatInBar: Int

    package init(offset: Int, bar: Int64, beatInBar: Int) {
        self.offset = offset
        self.bar = bar
        self.beatInBar = beatInBar
    }

    package var isBell: Bool { beatInBar == 0 }
}

/// What a cycle of a followed transport asks of the metronome.
package enum TransportFollowing: Sendable, Equatable {
    /// The transport is stopped: silence.
    case stopped
    /// The master's beats: this many clicks written for the cycle.
    case following(clicks: Int)
    /// No client is timebase master: the transport's start and stop alone
    /// start and stop the metronome's own grid (klick's `-t`).
    case ownGrid(rolling: Bool)
}

/// Clicks on the timebase master's beats, cycle by cycle (issue 29's
/// `--transport follow`).
///
/// The master's tick is rounded by some (Ardour) and floored by others, so it
/// is read only to anchor: at a start, a relocation, or a change of tempo,
/// meter, ticks a beat or rate. From the anchor the follower extrapolates its
/// own grid exactly, click `j` at `floor(a + j·beat + 1/2)` frames in integers
/// (never a sum of intervals), and only checks the master against it. A cycle
/// whose position disagrees with the grid by more than `max(2 ticks, 1 ms)`
/// (twice the worst a rounding or a flooring can do; the millisecond for
/// masters of very fine ticks) is a relocation. A start or a relocation that
/// agrees with the grid, or with one of the last eight grids, keeps it: a
/// tempo stays exact through stops and locates, whichever way the master
/// rounds its ticks. A tempo or meter change is anchored on the beat last
/// clicked when the master puts it at the start of that beat (a map changes
/// on a beat), else on the tick: exact on a beat's frame, else within half a
/// tick of a rounding master and a tick of a flooring one.
///
/// The bpm, a `Double`, is taken as the exact rational it stands for: a
/// whole number of thousandths of a bpm when it is one to 10^-6 (as `Tempo`
/// holds tempos, so a tie falls as on our own grid), else the binary fraction
/// the `Double` is. A beat is `60·R/bpm` frames of the master's rate `R`;
/// positions are counted in units of `1/(2·T·p)` frame for `bpm = p/q` and
/// `T` ticks a beat (rounded to a whole number), where a beat is `120·R·q·T`
/// units. Each is about a frame count times `2·T·p`: below 2^47 · 2^21 · 2^53
/// = 2^121 for a frame below 2^47 (23 years at 192 kHz), `T` at most 2^20 and
/// `p` below 2^53; a master's bar so far off that its beat would overflow is
/// a relocation.
///
/// `follow` allocates nothing, takes no lock: for the process callback.
package struct TransportFollower: Sendable {
    /// The grid followed, if the master has published one.
    private var grid: Grid?
    /// The last grids anchored, the newest at `knownNext - 1`: a master back in a tempo met before is followed on its grid.
    private var known = InlineArray<8, Grid?>(repeating: nil)
    private var knownNext = 0
    /// Where the next cycle starts if the transport rolls on; nil while stopped.
    private var nextFrame: Int64?
    /// The last beat clicked since the transport last started or moved, never clicked twice.
    private var lastClick: LastClick?

    /// The beat last clicked: its bar and place in it, and where it starts exactly, in its grid's units.
    private struct LastClick {
        let bar: Int64, beatInBar: Int64
        let units: Int128, perFrame: Int128
    }

    package init() {}

    /// Frames past this (23 years at 192 kHz) are not followed: their units would near 2^127.
    package static let frameLimit: Int64 = 1 << 47

    /// The clicks of the cycle of `frames` frames that starts at `position`,
    /// written into `clicks` (those past its capacity are dropped: 32 hold a
    /// cycle of 8192 frames at 8 kHz and 1000 bpm).
    ///
    /// `ahead`: frames the cycle is heard after the transport's frame (the
    /// output's latency): the clicks written are those of the master's beats
    /// `ahead` frames on, so that each is heard when its beat falls, as a DAW
    /// sends its own click ahead.
    package mutating func follow(_ position: MasterPosition, frames: Int, ahead: Int = 0,
                                 into clicks: UnsafeMutableBufferPointer<FollowedClick>) -> TransportFollowing {
        let continuous = nextFrame == position.frame
        nextFrame = position.rolling ? position.frame + Int64(frames) : nil
        guard let bbt = position.bbt, position.frame >= 0, position.frame < Self.frameLimit,
              let published = Published(bbt, rate: position.frameRate) else {
            grid = nil
            lastClick = nil
            return .ownGrid(rolling: position.rolling)
        }
        guard position.rolling else {
            lastClick = nil
            return .stopped
        }
        if !continuous { lastClick = nil }
        anchor(on: published, at: position.frame)
        guard let grid else { return .following(clicks: 0) }
        // The clicks of frames [F, F + n), F the cycle's first frame `ahead`: frame(j) >= F exactly when j >= (2TpF - Tp - a) / beat.
        let first = position.frame + Int64(ahead)
        let end = first + Int64(frames)
        var j = Grid.ceilingDivide(grid.units(ofFrame: first) - grid.halfFrame - grid.anchor, grid.beat)
        var count = 0
        while true {
            let frame = grid.frame(ofBeat: j)
            guard frame < end else { break }
            let beat = grid.anchorBeat + Int64(j)
            let bar = Self.floorDivide(beat, grid.beatsPerBar) + 1
            let beatInBar = beat - (bar - 1) * grid.beatsPerBar
            j += 1
            if let last = lastClick, last.bar == bar, last.beatInBar == beatInBar { continue }
            lastClick = LastClick(bar: bar, beatInBar: beatInBar, units: grid.anchor + (j - 1) * grid.beat, perFrame: grid.perFrame)
            if count < clicks.count {
                clicks[count] = FollowedClick(offset: Int(frame - first), bar: bar, beatInBar: Int(beatInBar))
                count += 1
            }
        }
        return .following(clicks: count)
    }

    /// Keeps the grid where the master agrees with it; else anchors on the
    /// beat last clicked where a change of tempo or meter starts there, else
    /// takes a grid met before that agrees, else anchors on the tick.
    private mutating func anchor(on published: Published, at frame: Int64) {
        if let grid, grid.agrees(with: published, at: frame) { return }
        let fresh = Grid(published, anchoredAt: frame)
        if grid != nil, let last = lastClick, last.bar == published.bar, last.beatInBar == published.beatInBar {
            var onLast = fresh
            // Where the beat starts exactly, not the frame it was heard on: the new grid keeps its fraction.
            onLast.anchor = Grid.convert(last.units, from: last.perFrame, to: fresh.perFrame)
            if onLast.agrees(with: published, at: frame) { return remember(onLast) }
        }
        for index in known.indices {
            if let old = known[index], old.agrees(with: published, at: frame) {
                grid = old
                return
            }
        }
        remember(fresh)
    }

    /// Follows `grid` from now on, and keeps it in place of the oldest known.
    private mutating func remember(_ grid: Grid) {
        self.grid = grid
        known[knownNext] = grid
        knownNext = (knownNext + 1) % known.count
    }

    /// `floor(a / b)` for `b > 0`.
    @inline(__always)
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return a % b < 0 ? quotient - 1 : quotient
    }
}

extension TransportFollower {
    /// A master's BBT checked and made exact; nil where it cannot be followed
    /// (a rate, tempo, meter or ticks a beat that is not positive and finite).
    struct Published {
        /// What, when it changes, anchors anew.
        let fields: Fields
        /// `T`, `p / q` (the bpm), `R`, beats a bar.
        let ticks: Int128
        let p: Int128
        let q: Int128
        let rate: Int128
        let beatsPerBar: Int64
        /// The beat the cycle starts in, from 0 at bar 1's first, its bar and its beat in it; ticks past it.
        let beat: Int64
        let bar: Int64
        let beatInBar: Int64
        let tick: Int128

        struct Fields: Equatable {
            var beatsPerMinute: Double
            var beatsPerBar: Float
            var beatType: Float
            var ticksPerBeat: Double
            var rate: Int64
        }

        init?(_ bbt: MasterPosition.BBT, rate: Int64) {
            guard rate > 0, rate <= 1 << 20,
                  bbt.ticksPerBeat.isFinite, bbt.ticksPerBeat >= 1, bbt.ticksPerBeat <= 0x1p20,
                  bbt.beatsPerBar.isFinite, bbt.beatsPerBar >= 1, bbt.beatsPerBar <= 1024,
                  bbt.beatType.isFinite, bbt.beatType > 0,
                  let (p, q) = Self.exactTempo(bbt.beatsPerMinute),
                  abs(bbt.bar) <= Int64(Int32.max), abs(bbt.beat) <= Int64(Int32.max), abs(bbt.tick) <= Int64(Int32.max)
            else { return nil }
            fields = Fields(beatsPerMinute: bbt.beatsPerMinute, beatsPerBar: bbt.beatsPerBar, beatType: bbt.beatType,
                            ticksPerBeat: bbt.ticksPerBeat, rate: rate)
            let ticks = Int64(bbt.ticksPerBeat.rounded())
            self.ticks = Int128(ticks)
            self.p = p
            self.q = q
            self.rate = Int128(rate)
            beatsPerBar = Int64(bbt.beatsPerBar.rounded())
            // A rounded tick may reach the next beat: carry it.
            let carried = TransportFollower.floorDivide(bbt.tick, ticks)
            tick = Int128(bbt.tick - carried * ticks)
            beat = (bbt.bar - 1) * beatsPerBar + (bbt.beat - 1) + carried
            bar = TransportFollower.floorDivide(beat, beatsPerBar) + 1
            beatInBar = beat - (bar - 1) * beatsPerBar
        }

        /// `bpm` as `p / q`: thousandths when it is whole thousandths to 10^-6, else its exact binary fraction.
        static func exactTempo(_ bpm: Double) -> (p: Int128, q: Int128)? {
            guard bpm.isFinite, bpm >= 1, bpm <= 100_000 else { return nil }
            let milli = (bpm * 1000).rounded()
            if abs(bpm * 1000 - milli) <= 1e-6 {
                var (p, q) = (Int128(milli), Int128(1000))
                var (a, b) = (p, q)
                while b != 0 { (a, b) = (b, a % b) }
                p /= a
                q /= a
                return (p, q)
            }
            // Doubling is exact: at most 52 times for a bpm of at least 1, so q <= 2^52.
            var value = bpm, q: Int128 = 1
            while value != value.rounded() {
                value *= 2
                q *= 2
            }
            return (Int128(value), q)
        }
    }

    /// The followed grid: beat `anchorBeat + j` starts `j` beats after
    /// `anchor`, in units of `1/(2·T·p)` frame.
    struct Grid {
        let published: Published.Fields
        let beatsPerBar: Int64
        /// Units a frame (`2Tp`), half a frame, a tick (`120·R·q`), a beat (`120·R·q·T`), and the tolerance.
        let perFrame: Int128
        let halfFrame: Int128
        let tick: Int128
        let beat: Int128
        let tolerance: Int128
        var anchor: Int128
        var anchorBeat: Int64

        /// Beat `published.beat` starts `published.tick` ticks before `frame`.
        init(_ published: Published, anchoredAt frame: Int64) {
            self.published = published.fields
            beatsPerBar = published.beatsPerBar
            perFrame = 2 * published.ticks * published.p
            halfFrame = published.ticks * published.p
            tick = 120 * published.rate * published.q
            beat = tick * published.ticks
            // 2 ticks, or 1 ms (R / 1000 frames) where that is more.
            tolerance = max(2 * tick, (perFrame * published.rate + 999) / 1000)
            anchorBeat = published.beat
            anchor = perFrame * Int128(frame) - published.tick * tick
        }

        @inline(__always)
        func units(ofFrame frame: Int64) -> Int128 { perFrame * Int128(frame) }

        /// The frame of beat `anchorBeat + j`: the nearest, a half frame rounding up.
        @inline(__always)
        func frame(ofBeat j: Int128) -> Int64 {
            Int64(Self.floorDivide(anchor + j * beat + halfFrame, perFrame))
        }

        /// How far the start of the beat `published` is in lies from this grid's, in units.
        /// Whether `published` is this grid's tempo and meter, within the tolerance of it.
        func agrees(with published: Published, at frame: Int64) -> Bool {
            self.published == published.fields && abs(disagreement(with: published, at: frame)) <= tolerance
        }

        /// A beat so far from the anchor that its units would overflow is as far as can be.
        func disagreement(with published: Published, at frame: Int64) -> Int128 {
            let start = units(ofFrame: frame) - published.tick * tick
            let (offset, overflow) = Int128(published.beat - anchorBeat).multipliedReportingOverflow(by: beat)
            guard !overflow, abs(offset) < 1 << 124 else { return .max }
            return start - (anchor + offset)
        }

        /// `units` of a grid of `from` units a frame in one of `to`, floored (exact when one divides the other).
        static func convert(_ units: Int128, from: Int128, to: Int128) -> Int128 {
            if from == to { return units }
            let whole = floorDivide(units, from), part = units - whole * from
            let (scaled, overflow) = part.multipliedReportingOverflow(by: to)
            // Beyond 2^127 (bpm that are no thousandths): to the frame, as near as it can be held.
            return whole * to + (overflow ? 0 : floorDivide(scaled, from))
        }

        static func floorDivide(_ a: Int128, _ b: Int128) -> Int128 {
            let quotient = a / b
            return a % b < 0 ? quotient - 1 : quotient
        }

        static func ceilingDivide(_ a: Int128, _ b: Int128) -> Int128 {
            -floorDivide(-a, b)
        }
    }
}
