/// A fixed pool of playing voices summed into a mono Float buffer, or each
/// into the buffer of its voice (`VoiceBuffers`).
///
/// Everything is allocated in `init`: `mix` and `start` touch only raw
/// memory, so the audio thread can call them without allocating or locking.
package final class Mixer: @unchecked Sendable {
    /// One sound, copied into memory the mixer owns, with the gain it plays at.
    struct Slot {
        let samples: UnsafeMutablePointer<Float>
        let count: Int
        var gain: Float
    }

    /// A sound being played: which slot, the next sample of it to mix, and
    /// its own level (an accent, a count-in), times the slot's gain.
    struct Voice {
        var slot: Int
        var position: Int
        var level: Float
    }

    private let slots: UnsafeMutableBufferPointer<Slot>
    private let voices: UnsafeMutablePointer<Voice>
    package let voiceCapacity: Int
    /// Voices playing now.
    package private(set) var activeVoices = 0

    /// Copies the sounds in, each with its gain, and reserves `voiceCapacity` voices.
    package init(sounds: [(samples: [Float], gain: Float)], voiceCapacity: Int) {
        slots = .allocate(capacity: sounds.count)
        for (index, sound) in sounds.enumerated() {
            let storage = UnsafeMutablePointer<Float>.allocate(capacity: max(sound.samples.count, 1))
            sound.samples.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { storage.initialize(from: base, count: source.count) }
            }
            slots.initializeElement(at: index, to: Slot(samples: storage, count: sound.samples.count, gain: sound.gain))
        }
        self.voiceCapacity = max(voiceCapacity, 1)
        voices = .allocate(capacity: self.voiceCapacity)
    }

    /// Plays every sound at `gain` from now on, the ones ringing included.
    package func setGain(_ gain: Float) {
        for index in slots.indices { slots[index].gain = gain }
    }

    deinit {
        for slot in slots { slot.samples.deallocate() }
        slots.deallocate()
        voices.deallocate()
    }

    /// Adds every playing voice into `output[0..<count]` (each into the
    /// buffer of its slot, `buffer(forSlot:)`) and advances it; voices that
    /// reach their end are released. Specialized for each output.
    @inline(__always)
    func mix<Output: ClickOutput>(into output: Output, count: Int) {
        var index = 0
        while index < activeVoices {
            let voice = voices[index]
            let slot = slots[voice.slot]
            let remaining = slot.count - voice.position
            let frames = min(remaining, count)
            Self.add(slot.samples + voice.position, gain: slot.gain * voice.level, into: output.buffer(forSlot: voice.slot), count: frames)
            if remaining <= count {
                activeVoices -= 1
                voices[index] = voices[activeVoices]
            } else {
                voices[index].position += count
                index += 1
            }
        }
    }

    /// Starts the sound in `slot` at `offset` frames into `output[0..<count]`
    /// (the slot's buffer) at `level` times the slot's gain, and mixes its
    /// first part; it keeps playing in later calls to `mix`. `skipping`: the
    /// frames of the sound that fell before this block (a spoken word, which
    /// starts before its click), left out.
    @inline(__always)
    func start<Output: ClickOutput>(slot slotIndex: Int, level: Float = 1, at offset: Int, skipping: Int = 0, into output: Output, count: Int) {
        let slot = slots[slotIndex]
        guard skipping < slot.count else { return }
        let frames = min(slot.count - skipping, count - offset)
        Self.add(slot.samples + skipping, gain: slot.gain * level, into: output.buffer(forSlot: slotIndex) + offset, count: frames)
        guard skipping + frames < slot.count else { return }
        // The capacity covers every click that can still ring; never write past it.
        guard activeVoices < voiceCapacity else { return }
        voices[activeVoices] = Voice(slot: slotIndex, position: skipping + frames, level: level)
        activeVoices += 1
    }

    /// Moves every voice `frames` further on without mixing, as if that much
    /// audio had played (used when the device skipped time).
    package func advance(by frames: Int64) {
        var index = 0
        while index < activeVoices {
            let remaining = Int64(slots[voices[index].slot].count - voices[index].position)
            if remaining <= frames {
                activeVoices -= 1
                voices[index] = voices[activeVoices]
            } else {
                voices[index].position += Int(frames)
                index += 1
            }
        }
    }

    @inline(__always)
    private static func add(_ source: UnsafeMutablePointer<Float>, gain: Float, into output: UnsafeMutablePointer<Float>, count: Int) {
        var index = 0
        while index < count {
            output[index] += source[index] * gain
            index += 1
        }
    }
}
