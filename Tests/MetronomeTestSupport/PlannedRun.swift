import Testing
import MetronomeTiming
import MetronomeAudio

/// An exact fraction in 128-bit integers, for the expected positions
/// (independent of the engine's arithmetic; the maps here keep it small).
package struct Fraction: Equatable {
    package var numerator: Int128
    package var denominator: Int128

    package init(_ numerator: Int128, _ denominator: Int128 = 1) {
        var a = numerator.magnitude, b = denominator.magnitude
        while b != 0 { (a, b) = (b, a % b) }
        self.numerator = numerator / Int128(a)
        self.denominator = denominator / Int128(a)
    }

    package static func + (lhs: Fraction, rhs: Fraction) -> Fraction {
        Fraction(lhs.numerator * rhs.denominator + rhs.numerator * lhs.denominator, lhs.denominator * rhs.denominator)
    }

    package static func * (lhs: Fraction, rhs: Int128) -> Fraction { Fraction(lhs.numerator * rhs, lhs.denominator) }

    /// `floor(x + 1/2)`: the frame the engine puts a click at.
    package var nearestFrame: Int64 { Int64((2 * numerator + denominator) / (2 * denominator)) }
}

/// Seconds of one beat of note value `d` at `q` quarter notes a minute, in frames at `rate`: `240 R / (d q)`.
package func beatFrames(quarterNotes q: String, noteValue d: Int128, rate: Int128) throws -> Fraction {
    let milli = Int128(try Tempo(parsing: q).millibeatsPerMinute)
    return Fraction(240_000 * rate, d * milli)
}

/// A planned track rendered with impulse sounds in odd-sized blocks, the plan fed between blocks.
package struct PlannedRun {
    package let onsets: [(frame: Int64, value: Float)]
    package let clicks: [StartedClick]
    package let renderedFrames: Int64
    /// With `clock`, the MIDI clock's messages (`--midi-clock`) at their frames.
    package let clockMessages: [(frame: Int64, message: MIDIMessage)]

    /// `beats` after the count-in, or all the plan's.
    package init(_ source: TempoPlan.Source, rate: Int64, rhythm: Rhythm = .plain, beats: Int64? = nil, block: Int = 1009,
                 clock: Bool = false) throws {
        let rate = try #require(SampleRate(rate))
        let all = TempoPlan(source, rate: rate, rhythm: rhythm).beats(inBars: nil)
        let beats = try #require(beats ?? all)
        let plan = TempoPlan(source, rate: rate, rhythm: rhythm, beats: beats)
        let length = TrackLength.beats(beats)
        let sounds = ClickSounds(beat: Sound(samples: [0.25], rate: rate), bell: Sound(samples: [-0.75], rate: rate),
                                 subdivision: Sound(samples: [0.09375], rate: rate), polyrhythm: Sound(samples: [0.015625], rate: rate))
        let feeder = PlanFeeder(plan, capacity: 8)
        let track = ClickTrack(plan: plan, feeder: feeder, sounds: sounds, length: length)
        let log = ClickLog(capacity: 1 << 16)
        track.clickLog = log
        let clockInBlock = clock ? MIDIMessages() : nil
        track.clockInBlock = clockInBlock
        var clockMessages: [(frame: Int64, message: MIDIMessage)] = []
        var samples: [Float] = []
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block)
        defer { buffer.deallocate() }
        while !track.isFinished {
            feeder.feed()
            clockInBlock?.removeAll()
            let frames = track.render(into: buffer, count: block)
            samples.append(contentsOf: UnsafeBufferPointer(start: buffer, count: frames))
            if let clockInBlock { clockMessages += (0..<clockInBlock.count).map { clockInBlock[$0] } }
        }
        self.clockMessages = clockMessages
        onsets = samples.enumerated().filter { $0.element != 0 }.map { (Int64($0.offset), $0.element) }
        clicks = log.drain()
        renderedFrames = Int64(samples.count)
    }

    package var frames: [Int64] { onsets.map(\.frame) }
}

package func parseMap(_ text: String) throws -> TempoMap {
    try TempoMap(parsing: Array(text.utf8), name: "map.txt")
}

/// A cycle's incoming MIDI as a list, standing in for a JACK MIDI input buffer.
package struct IncomingMIDI: MIDIEventInput {
    package let events: [(offset: Int, message: MIDIMessage)]
    package init(_ events: [(offset: Int, message: MIDIMessage)]) { self.events = events }
    package var count: Int { events.count }
    package func event(_ index: Int) -> (offset: Int, message: MIDIMessage)? { events[index] }
}
