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
