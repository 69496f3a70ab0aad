/// What the transport publishes for one JACK cycle, at its first frame: the
/// `jack_transport_query` state and position, as plain values.
package struct MasterPosition: Sendable, Equatable, BitwiseCopyable {
    /// `JackTransportRolling` (starting and stopped are not).
    package var rolling: Bool
    /// `frame`: the transport's frame at the cycle's first frame, unwrapped
    /// to 64 bits by the caller (JACK's is 32 bits, 24 hours at 48 kHz).
    package var frame: Int64
    /// `frame_rate`.
    package var frameRate: Int64
    /// The timebase master's bar, beat and tick; nil where `valid` lacks `JackPositionBBT`.
    package var bbt: BBT?

    package init(rolling: Bool, frame: Int64, frameRate: Int64, bbt: BBT?) {
        self.rolling = rolling
        self.frame = frame
        self.frameRate = frameRate
        self.bbt = bbt
    }

    /// The BBT fields of `jack_position_t`, in their own types where the
    /// master may send what is not a whole number.
    package struct BBT: Sendable, Equatable, BitwiseCopyable {
        /// `bar`, from 1.
        package var bar: Int64
        /// `beat` in its bar, from 1.
        package var beat: Int64
        /// `tick` in its beat: floored by some masters, rounded by others (Ardour).
        package var tick: Int64
        package var ticksPerBeat: Double
        package var beatsPerBar: Float
        package var beatType: Float
        /// Beats (of `beatType`) a minute.
        package var beatsPerMinute: Double

        package init(bar: Int64, beat: Int64, tick: Int64, ticksPerBeat: Double, beatsPerBar: Float, beatType: Float,
                     beatsPerMinute: Double) {
            self.bar = bar
            self.beat = beat
            self.tick = tick
            self.ticksPerBeat = ticksPerBeat
            self.beatsPerBar = beatsPerBar
            self.beatType = beatType
            self.beatsPerMinute = beatsPerMinute
        }

        /// What a master filling `position` publishes.
        package init(_ position: TransportPosition) {
            self.init(bar: position.bar, beat: Int64(position.beat), tick: Int64(position.tick),
                      ticksPerBeat: Double(position.ticksPerBeat), beatsPerBar: Float(position.beatsPerBar),
                      beatType: Float(position.beatType), beatsPerMinute: position.beatsPerMinute)
        }
    }
}
