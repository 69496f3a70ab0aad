import CJack
import MetronomeTiming

/// What the metronome does with JACK's transport (`--transport`).
package enum JackTransportRole: Sendable {
    /// Its own grid, whatever the transport does.
    case ignore
    /// The timebase master's beats, silent while the transport is stopped.
    case follow
    /// The timebase master, filling the BBT from `timebase`; `force` takes the role from another.
    case lead(TransportTimebase, force: Bool)
}

/// The transport, as a value the process callback keeps (as `JackClock`):
/// where it is and whether it rolls (`jack_transport_query`, callable in the
/// callback), and starting and stopping it for every client.
package struct JackTransport: @unchecked Sendable {
    private let client: OpaquePointer
    private let query: JackLibrary.TransportQuery
    private let start: JackLibrary.TransportCall
    private let stop: JackLibrary.TransportCall

    init(client: OpaquePointer, library: JackLibrary) {
        self.client = client
        query = library.transportQuery
        start = library.transportStart
        stop = library.transportStop
    }

    /// The transport at this cycle's first frame, with the master's BBT when one publishes it.
    package func position() -> MasterPosition {
        var position = jack_position_t()
        let state = query(client, &position)
        let bbt: MasterPosition.BBT? = position.valid.rawValue & JackPositionBBT.rawValue == 0 ? nil
            : MasterPosition.BBT(bar: Int64(position.bar), beat: Int64(position.beat), tick: Int64(position.tick),
                                 ticksPerBeat: position.ticks_per_beat, beatsPerBar: position.beats_per_bar,
                                 beatType: position.beat_type, beatsPerMinute: position.beats_per_minute)
        return MasterPosition(rolling: state == JackTransportRolling, frame: Int64(position.frame),
                              frameRate: Int64(position.frame_rate), bbt: bbt)
    }

    /// Starts the transport rolling, for every client (`jack_transport_start`).
    package func roll() { start(client) }

    /// Stops the transport, for every client (`jack_transport_stop`).
    package func halt() { stop(client) }
}

/// The timebase master's answer, kept where JACK's timebase callback reaches
/// it through one pointer: the BBT of any frame JACK asks for.
final class JackTimebaseBox: @unchecked Sendable {
    private var timebase: TransportTimebase

    init(_ timebase: TransportTimebase) {
        self.timebase = timebase
    }

    /// Fills `position`'s BBT for its frame. JACK's process thread.
    func fill(_ position: UnsafeMutablePointer<jack_position_t>) {
        let answer = timebase.position(atFrame: Int64(position.pointee.frame))
        position.pointee.valid = JackPositionBBT
        position.pointee.bar = Int32(clamping: answer.bar)
        position.pointee.beat = Int32(clamping: answer.beat)
        position.pointee.tick = Int32(clamping: answer.tick)
        position.pointee.bar_start_tick = Double(answer.barStartTick)
        position.pointee.beats_per_bar = Float(answer.beatsPerBar)
        position.pointee.beat_type = Float(answer.beatType)
        position.pointee.ticks_per_beat = Double(answer.ticksPerBeat)
        position.pointee.beats_per_minute = answer.beatsPerMinute
    }
}
