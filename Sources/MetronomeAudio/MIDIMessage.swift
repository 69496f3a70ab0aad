/// One MIDI message of one to three bytes, as a JACK MIDI port carries it: a
/// plain value the audio thread makes and copies without allocating.
package struct MIDIMessage: Equatable, Sendable, BitwiseCopyable {
    package let status: UInt8
    package let data1: UInt8
    package let data2: UInt8
    /// How many of the three bytes the message has.
    package let size: Int

    package init(_ status: UInt8, _ data1: UInt8 = 0, _ data2: UInt8 = 0, size: Int) {
        self.status = status
        self.data1 = data1
        self.data2 = data2
        self.size = size
    }

    /// System real-time messages: 24 clocks a quarter note, and the transport's.
    package static let clock = MIDIMessage(0xF8, size: 1)
    package static let start = MIDIMessage(0xFA, size: 1)
    package static let `continue` = MIDIMessage(0xFB, size: 1)
    package static let stop = MIDIMessage(0xFC, size: 1)

    /// Song Position Pointer: the place a Continue plays from, in sixteenth
    /// notes (6 clocks) from the song's start; 14 bits, so at most 16383.
    package static func songPosition(_ sixteenths: Int64) -> MIDIMessage {
        let position = UInt16(min(max(sixteenths, 0), 0x3FFF))
        return MIDIMessage(0xF2, UInt8(position & 0x7F), UInt8(position >> 7), size: 3)
    }

    package static func noteOn(_ key: UInt8, velocity: UInt8, channel: UInt8) -> MIDIMessage {
        MIDIMessage(0x90 | channel, key, velocity, size: 3)
    }

    package static func noteOff(_ key: UInt8, channel: UInt8) -> MIDIMessage {
        MIDIMessage(0x80 | channel, key, 0, size: 3)
    }

    /// The message's bytes (allocates: for tests and messages, never the audio thread).
    package var bytes: [UInt8] { Array([status, data1, data2].prefix(size)) }
}

/// Where a cycle's MIDI messages are written, each at its offset in the
/// cycle: a JACK MIDI buffer, or in the tests a list.
package protocol MIDIEventOutput {
    func write(_ message: MIDIMessage, at offset: Int) -> Bool
}

/// MIDI messages at track frames, in a fixed buffer the audio thread fills
/// and reads without allocating: the clock's messages of one render call
/// (`--midi-clock`), or one cycle's from every source, put in order. Past
/// `capacity` messages are dropped (1024: a clock at 4000 quarter notes a
/// minute sends 273 in an 8192-frame cycle at 48 kHz).
package final class MIDIMessages: @unchecked Sendable {
    package let capacity: Int
    private let frames: UnsafeMutablePointer<Int64>
    private let messages: UnsafeMutablePointer<MIDIMessage>
    package private(set) var count = 0

    package init(capacity: Int = 1_024) {
        self.capacity = capacity
        frames = .allocate(capacity: capacity)
        messages = .allocate(capacity: capacity)
    }

    deinit {
        frames.deallocate()
        messages.deallocate()
    }

    package func removeAll() { count = 0 }

    package func append(_ message: MIDIMessage, at frame: Int64) {
        guard count < capacity else { return }
        frames[count] = frame
        messages[count] = message
        count += 1
    }

    package subscript(index: Int) -> (frame: Int64, message: MIDIMessage) { (frames[index], messages[index]) }

    /// Puts the messages in order of frame, keeping the order of those at one
    /// frame (an insertion sort: each source's are in order already, so it is quick).
    package func sortByFrame() {
        var index = 1
        while index < count {
            defer { index += 1 }
            let frame = frames[index], message = messages[index]
            var place = index
            while place > 0, frames[place - 1] > frame {
                frames[place] = frames[place - 1]
                messages[place] = messages[place - 1]
                place -= 1
            }
            frames[place] = frame
            messages[place] = message
        }
    }

    /// Writes every message into `output` at its frame less `start` (none before 0).
    package func write(from start: Int64, into output: some MIDIEventOutput) {
        var index = 0
        while index < count {
            _ = output.write(messages[index], at: Int(max(0, frames[index] - start)))
            index += 1
        }
    }
}
