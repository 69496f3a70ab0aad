/// Float samples to 16-bit integers, for files and devices alike.
package enum SampleConversion {
    /// Rounds to nearest (ties to even) and clamps to the 16-bit range.
    ///
    /// Adding 1.5 * 2^23 puts the rounded integer in the low bits of the
    /// float's pattern, so the loop is plain integer work the compiler
    /// vectorises, with no call to `roundf` per sample.
    @inline(__always)
    package static func int16(from source: UnsafeMutablePointer<Float>, to target: UnsafeMutablePointer<Int16>, count: Int) {
        let magic: Float = 12_582_912
        let magicPattern = Int32(bitPattern: magic.bitPattern)
        for index in 0..<count {
            let clamped = min(max(source[index] * 32767, -32768), 32767)
            let pattern = Int32(bitPattern: (clamped + magic).bitPattern)
            target[index] = Int16(truncatingIfNeeded: pattern &- magicPattern)
        }
    }
}
