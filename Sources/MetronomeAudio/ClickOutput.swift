/// Where a period of the click track goes: one buffer, the mono mix
/// (`UnsafeMutablePointer<Float>`), or one buffer a voice (`VoiceBuffers`,
/// for `--jack-ports split`). `ClickTrack` and `JackPlayback` run one body
/// for both, specialized for each; nothing here allocates.
protocol ClickOutput {
    /// Sets frames `0..<count` to `value` (in every buffer).
    func update(repeating value: Float, count: Int)
    /// The output from frame `frames` on.
    func advanced(by frames: Int) -> Self
    /// Multiplies frame `index` by `factor` (in every buffer): a fade.
    func scale(frame index: Int, by factor: Float)
    /// The buffer the mixer's sound in `slot` plays into (the one buffer of the mono mix).
    func buffer(forSlot slot: Int) -> UnsafeMutablePointer<Float>
    /// Records frames `0..<count` (summed) in `played` as track frames from `frame` on.
    func record(in played: PlayedAudio, count: Int, at frame: Int64)
    /// Copies frames `0..<count` into `kept` (its first buffer for the mono mix).
    func keep(in kept: VoiceBuffers, count: Int)
    /// Writes frames `0..<count` from `kept` back.
    func restore(from kept: VoiceBuffers, count: Int)
}

extension UnsafeMutablePointer: ClickOutput where Pointee == Float {
    @inline(__always)
    func scale(frame index: Int, by factor: Float) { self[index] *= factor }

    @inline(__always)
    func buffer(forSlot slot: Int) -> UnsafeMutablePointer<Float> { self }

    func record(in played: PlayedAudio, count: Int, at frame: Int64) {
        played.record(self, count: count, at: frame)
    }

    func keep(in kept: VoiceBuffers, count: Int) { kept.bell.update(from: self, count: count) }

    func restore(from kept: VoiceBuffers, count: Int) { update(from: kept.bell, count: count) }
}

extension VoiceBuffers: ClickOutput {
    @inline(__always)
    func scale(frame index: Int, by factor: Float) {
        bell[index] *= factor
        beat[index] *= factor
        subdivision[index] *= factor
        polyrhythm[index] *= factor
    }

    @inline(__always)
    func buffer(forSlot slot: Int) -> UnsafeMutablePointer<Float> { self[slot: slot] }

    func record(in played: PlayedAudio, count: Int, at frame: Int64) {
        played.record(summing: self, count: count, at: frame)
    }

    func keep(in kept: VoiceBuffers, count: Int) {
        for voice in 0..<4 { kept[slot: voice].update(from: self[slot: voice], count: count) }
    }

    func restore(from kept: VoiceBuffers, count: Int) {
        for voice in 0..<4 { self[slot: voice].update(from: kept[slot: voice], count: count) }
    }
}

/// What a generic call with an output needs at run time in an unoptimised
/// build (the pointer type's metadata, its conditional conformance's witness
/// table), made once off the audio thread: made there, their first period
/// would allocate.
enum ClickOutputWarmUp {
    static let done: Bool = {
        let sample = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        defer { sample.deallocate() }
        touch(sample)
        touch(VoiceBuffers(bell: sample, beat: sample, subdivision: sample, polyrhythm: sample))
        return true
    }()

    private static func touch<Output: ClickOutput>(_ output: Output) {
        _ = output.advanced(by: 0)
    }
}
