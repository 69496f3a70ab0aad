import Glibc

/// Values by an Int64 key in one open-addressed table: what `stats` sums by
/// piece and day, or tempo and day, a million times, without hashing through
/// `Hasher` or nesting dictionaries. Values sit densely in the order their keys
/// came first.
struct FlatTable<Value> {
    private(set) var keys: [Int64] = []
    var values: [Value] = []
    /// Each slot holds an index into `keys` and `values`, or -1.
    private var slots = [Int32](repeating: -1, count: 64)
    private var shift = 58

    var count: Int { keys.count }

    /// Where `key`'s value is, made `initial` if the key is new.
    mutating func index(of key: Int64, initial: Value) -> Int {
        let mask = slots.count - 1
        var slot = Self.home(key, shift)
        while true {
            let index = Int(slots[slot])
            if index < 0 { break }
            if keys[index] == key { return index }
            slot = (slot + 1) & mask
        }
        if (keys.count + 1) * 2 > slots.count {
            grow()
            return index(of: key, initial: initial)
        }
        slots[slot] = Int32(keys.count)
        keys.append(key)
        values.append(initial)
        return keys.count - 1
    }

    /// Fibonacci hashing: the key times 2^64/φ, its top bits.
    private static func home(_ key: Int64, _ shift: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        shift -= 1
        let mask = slots.count - 1
        for (index, key) in keys.enumerated() {
            var slot = Self.home(key, shift)
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index)
        }
    }
}

/// Names numbered by their UTF-8 bytes, as they come in the log: a name is
/// hashed (FNV-1a) and compared on its bytes, never made a String until it
/// is new.
struct NameTable {
    private var bytes: [UInt8] = []
    private var ranges: [Range<Int>] = []
    private var numbers = FlatTable<[Int]>()
    /// Each name as a String, by number.
    private(set) var names: [String] = []

    var count: Int { names.count }

    /// The UTF-8 of the name numbered `number`.
    func utf8(_ number: Int) -> ArraySlice<UInt8> { bytes[ranges[number]] }

    /// The number of the name in `utf8`; `isNew` when it was not known.
    mutating func number(_ utf8: UnsafeBufferPointer<UInt8>) -> (number: Int, isNew: Bool) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let bucket = numbers.index(of: Int64(bitPattern: hash), initial: [])
        for known in numbers.values[bucket] where ranges[known].count == utf8.count {
            let same = utf8.isEmpty || bytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + ranges[known].lowerBound, utf8.baseAddress!, utf8.count) == 0 }
            if same { return (known, false) }
        }
        let first = bytes.count
        bytes.append(contentsOf: utf8)
        ranges.append(first..<bytes.count)
        names.append(String(decoding: utf8, as: UTF8.self))
        numbers.values[bucket].append(names.count - 1)
        return (names.count - 1, true)
    }
}
