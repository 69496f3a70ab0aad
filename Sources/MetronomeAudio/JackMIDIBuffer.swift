import CJack

/// A JACK MIDI output port's buffer for one cycle: cleared, then events
/// written in order of their frame. A plain value (the buffer and two libjack
/// calls) the process callback makes and uses without allocating.
package struct JackMIDIBuffer {
    private let buffer: UnsafeMutableRawPointer
    private let clearBuffer: JackLibrary.MIDIClearBuffer
    private let reserve: JackLibrary.MIDIEventReserve

    init(buffer: UnsafeMutableRawPointer, library: JackLibrary) {
        self.buffer = buffer
        clearBuffer = library.midiClearBuffer
        reserve = library.midiEventReserve
    }

    /// Empties the buffer: an output's must be, every cycle.
    package func clear() { clearBuffer(buffer) }

    /// Writes `message` at `offset` frames into the cycle; false if the
    /// buffer is full or the offset is before the last event's.
    @discardableResult
    package func write(_ message: MIDIMessage, at offset: Int) -> Bool {
        guard let event = reserve(buffer, jack_nframes_t(offset), message.size) else { return false }
        event[0] = message.status
        if message.size > 1 { event[1] = message.data1 }
        if message.size > 2 { event[2] = message.data2 }
        return true
    }
}

extension JackMIDIBuffer: MIDIEventOutput {}

/// A JACK MIDI input port's buffer for one cycle, read in place: each event's
/// offset in the cycle and its message, for those of one to three bytes (a
/// system exclusive message is passed over). Nothing allocated.
package struct JackMIDIInput {
    private let buffer: UnsafeMutableRawPointer
    private let eventGet: JackLibrary.MIDIEventGet
    package let count: Int

    init(buffer: UnsafeMutableRawPointer, library: JackLibrary) {
        self.buffer = buffer
        eventGet = library.midiEventGet
        count = Int(library.midiGetEventCount(buffer))
    }

    /// Event `index`: its offset in the cycle and its message; nil for one not of one to three bytes.
    package func event(_ index: Int) -> (offset: Int, message: MIDIMessage)? {
        var event = jack_midi_event_t()
        guard eventGet(&event, buffer, UInt32(index)) == 0, let bytes = event.buffer, event.size >= 1, event.size <= 3, bytes[0] & 0x80 != 0 else {
            return nil
        }
        let message = MIDIMessage(bytes[0], event.size > 1 ? bytes[1] : 0, event.size > 2 ? bytes[2] : 0, size: event.size)
        return (Int(event.time), message)
    }
}

extension JackMIDIInput: MIDIEventInput {}

/// Where `JackPlayback` reads a cycle's incoming MIDI: a JACK MIDI buffer, or in the tests a list.
package protocol MIDIEventInput {
    var count: Int { get }
    func event(_ index: Int) -> (offset: Int, message: MIDIMessage)?
}

/// A MIDI message that came in (`--midi-in`), with the track frame being heard when it came:
/// what a tap by a pad takes, as a key's tap takes the frame heard when it was pressed.
package struct ReceivedMIDI: Sendable, Equatable, BitwiseCopyable {
    package let heardFrame: Int64
    package let message: MIDIMessage

    package init(heardFrame: Int64, message: MIDIMessage) {
        self.heardFrame = heardFrame
        self.message = message
    }
}
