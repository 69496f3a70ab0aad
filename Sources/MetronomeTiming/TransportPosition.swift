/// Where a frame falls in bars, beats and ticks, as a JACK timebase master
/// fills it, in plain integers (the client converts to `jack_position_t`).
///
/// Bars and beats are counted from 1, as JACK counts them; a count-in's bars
/// are 0, -1, …, so bar 1 is the plan's first bar. `beatsPerMinute` counts the
/// meter's beats (eighths in 6/8), as JACK's own example master does.
package struct TransportPosition: Sendable, Equatable, BitwiseCopyable {
    /// `bar`, from 1.
    package var bar: Int64
    /// `beat` in its bar, from 1.
    package var beat: Int
    /// `tick` in its beat, `0..<ticksPerBeat`.
    package var tick: Int
    /// `bar_start_tick`: ticks from the grid's frame 0 to the bar's first beat.
    package var barStartTick: Int64
    /// `beats_per_bar`.
    package var beatsPerBar: Int
    /// `beat_type`: the note value of a beat.
    package var beatType: Int
    /// `ticks_per_beat`.
    package var ticksPerBeat: Int
    /// `beats_per_minute`: the beat's own tempo, from its exact length (the
    /// tempo of the beat the frame is in, not the instant's, inside a ramp).
    package var beatsPerMinute: Double

    package init(bar: Int64, beat: Int, tick: Int, barStartTick: Int64, beatsPerBar: Int, beatType: Int,
                 ticksPerBeat: Int, beatsPerMinute: Double) {
        self.bar = bar
        self.beat = beat
        self.tick = tick
        self.barStartTick = barStartTick
        self.beatsPerBar = beatsPerBar
        self.beatType = beatType
        self.ticksPerBeat = ticksPerBeat
        self.beatsPerMinute = beatsPerMinute
    }
}
