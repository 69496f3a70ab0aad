/// Integer arithmetic with a 128-bit intermediate, for frame positions.
enum ExactArithmetic {
    /// `floor((a * b + c) / d)` without overflow in the product.
    ///
    /// The caller guarantees the quotient fits in 64 bits; every frame number
    /// of a run shorter than a few thousand years does.
    @inline(__always)
    static func floorMultiplyAdd(_ a: UInt64, _ b: UInt64, plus c: UInt64, dividedBy d: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        let (low, carry) = product.low.addingReportingOverflow(c)
        let high = product.high &+ (carry ? 1 : 0)
        return d.dividingFullWidth((high: high, low: low)).quotient
    }
}
