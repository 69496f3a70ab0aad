/// A size in bytes as people read it: `512 B`, `4.6 GB`, `3.2 TB` (powers of 1000, as `df -H`).
struct ByteCount: CustomStringConvertible {
    let bytes: Int64

    init(_ bytes: Int64) { self.bytes = bytes }

    var description: String {
        let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        return "\((value * 10).rounded() / 10) \(units[unit])"
    }
}
