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

    /// Writes a three-byte message at `offset` frames into the cycle; false if
    /// the buffer is full or the offset is before the last event's.
    @discardableResult
    package func write(_ status: UInt8, _ data1: UInt8, _ data2: UInt8, at offset: Int) -> Bool {
        guard let event = reserve(buffer, jack_nframes_t(offset), 3) else { return false }
        event[0] = status
        event[1] = data1
        event[2] = data2
        return true
    }
}

/// Where `JackPlayback` writes a cycle's notes: a JACK MIDI buffer, or in the tests a list.
package protocol MIDINoteOutput {
    func write(_ status: UInt8, _ data1: UInt8, _ data2: UInt8, at offset: Int) -> Bool
}

extension JackMIDIBuffer: MIDINoteOutput {}
