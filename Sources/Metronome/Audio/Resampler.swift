import CSampleRate

/// Sample-rate conversion of a whole mono sound through libsamplerate.
enum Resampler {
    /// Converts `samples` from `sourceRate` to `targetRate` with the best sinc
    /// converter. Stands for `src_simple` with `SRC_SINC_BEST_QUALITY`.
    ///
    /// The converter's output is time-aligned with its input: the first output
    /// sample is the instant of the first input sample, so onsets do not move.
    static func convert(_ samples: [Float], from sourceRate: Int64, to targetRate: Int64) throws(MetronomeError) -> [Float] {
        guard sourceRate != targetRate, !samples.isEmpty else { return samples }
        let ratio = Double(targetRate) / Double(sourceRate)
        let capacity = Int((Double(samples.count) * ratio).rounded(.up)) + 16
        var output = [Float](repeating: 0, count: capacity)
        var code: Int32 = 0
        var generated = 0
        samples.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                var data = SRC_DATA()
                data.data_in = input.baseAddress
                data.input_frames = input.count
                data.data_out = out.baseAddress
                data.output_frames = out.count
                data.src_ratio = ratio
                data.end_of_input = 1
                code = src_simple(&data, Int32(SRC_SINC_BEST_QUALITY), 1)
                generated = data.output_frames_gen
            }
        }
        guard code == 0 else {
            throw MetronomeError(.software, "libsamplerate failed: \(String(cString: src_strerror(code)))")
        }
        output.removeLast(output.count - generated)
        return output
    }
}
