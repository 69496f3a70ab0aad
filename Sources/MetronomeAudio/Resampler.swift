import CSampleRate

/// Sample-rate conversion of a whole mono sound through libsamplerate.
enum Resampler {
    /// Converts `samples` from `sourceRate` to `targetRate` with the best sinc
    /// converter, in pieces. Stands for `src_process` with `SRC_SINC_BEST_QUALITY`.
    ///
    /// The converter's output is time-aligned with its input: the first output
    /// sample is the instant of the first input sample, so onsets do not move.
    /// `betweenPieces` runs before each piece: the command ends a long
    /// conversion there when asked to stop (its signals are blocked meanwhile).
    static func convert(_ samples: [Float], from sourceRate: Int64, to targetRate: Int64,
                        betweenPieces: () -> Void = {}) throws(SoundError) -> [Float] {
        guard sourceRate != targetRate, !samples.isEmpty else { return samples }
        let ratio = Double(targetRate) / Double(sourceRate)
        let capacity = Int((Double(samples.count) * ratio).rounded(.up)) + 16
        var output = [Float](repeating: 0, count: capacity)
        var code: Int32 = 0
        guard let converter = src_new(Int32(SRC_SINC_BEST_QUALITY), 1, &code) else {
            throw SoundError(.failed, "libsamplerate failed: \(String(cString: src_strerror(code)))")
        }
        defer { src_delete(converter) }
        var used = 0, generated = 0
        samples.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                // In pieces, so a stop can end a long conversion.
                repeat {
                    betweenPieces()
                    let piece = min(input.count - used, 65_536)
                    var data = SRC_DATA()
                    data.data_in = input.baseAddress! + used
                    data.input_frames = piece
                    data.data_out = out.baseAddress! + generated
                    data.output_frames = out.count - generated
                    data.src_ratio = ratio
                    data.end_of_input = used + piece == input.count ? 1 : 0
                    code = src_process(converter, &data)
                    used += data.input_frames_used
                    generated += data.output_frames_gen
                    if data.end_of_input == 1, data.output_frames_gen == 0 { break }
                } while code == 0 && generated < out.count
            }
        }
        guard code == 0 else {
            throw SoundError(.failed, "libsamplerate failed: \(String(cString: src_strerror(code)))")
        }
        output.removeLast(output.count - generated)
        return output
    }
}
