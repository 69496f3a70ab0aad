/// Reads one JSON value at a time from bytes, without building a tree: the
/// practice log's lines are read field by field, a million in a second.
/// Every read says whether it found what it was asked for; a line it cannot
/// follow is given up, never trapped on.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        index = 0
    }

    var atEnd: Bool { index >= bytes.count }

    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D || bytes[index] == 0x0A { index += 1 }
    }

    /// Takes `byte` (after spaces) if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpaces()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// The next byte after spaces, not taken.
    mutating func peek() -> UInt8? {
        skipSpaces()
        return index < bytes.count ? bytes[index] : nil
    }

    /// A string's bytes when it holds no escape (nil otherwise, or if the next value is none;
    /// then nothing is taken): a key or a date compared without making a String.
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        skipSpaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let end = plainEnd(from: index + 1)
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        defer { index = end + 1 }
        return UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end])
    }

    /// Where the first byte at or after `start` is that ends a plain string's run: a quote, a
    /// backslash or a control character (or the end). Eight bytes are tried at once: a byte
    /// equal to one sought, or under 0x20, is found by the borrow its subtraction leaves.
    private func plainEnd(from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        var end = start
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        while end + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + end).loadUnaligned(as: UInt64.self))
            let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
            let found = ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | (word &- ones &* 0x20) & ~word) & highs
            // Only the lowest flagged byte is sure: a borrow can flag the bytes above it.
            if found != 0 { return end + found.trailingZeroBitCount / 8 }
            end += 8
        }
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        return end
    }

    /// A string, its escapes decoded; nil if the next value is none.
    mutating func string() -> String? {
        if let plain = plainString() { return String(decoding: plain, as: UTF8.self) }
        var utf8: [UInt8] = []
        guard string(into: &utf8) != nil else { return nil }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// A string's UTF-8, its escapes decoded, appended to `utf8`: where it went, or nil if the next value is none.
    /// Nothing is allocated once `utf8` has room: a log's names are read a million times.
    mutating func string(into utf8: inout [UInt8]) -> Range<Int>? {
        let first = utf8.count
        if let plain = plainString() {
            utf8.append(contentsOf: plain)
            return first..<utf8.count
        }
        guard take(UInt8(ascii: "\"")) else { return nil }
        func append(_ scalar: Unicode.Scalar) { utf8.append(contentsOf: UTF8.encode(scalar)!) }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return first..<utf8.count
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "u"):
                    guard let unit = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(unit) {
                        // A surrogate pair: the low half must follow.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
                        index += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low),
                              let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) else { return nil }
                        append(scalar)
                    } else {
                        guard let scalar = Unicode.Scalar(unit) else { return nil }
                        append(scalar)
                    }
                default: return nil
                }
            case 0..<0x20:
                return nil
            default:
                utf8.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return value
    }

    /// A number; nil if the next value is none (or out of what a Double holds).
    mutating func number() -> Double? {
        skipSpaces()
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        var mantissa: Int64 = 0, digits = 0, scale = 0
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        while index < bytes.count, isDigit(bytes[index]) {
            if digits < 18 { mantissa = mantissa * 10 + Int64(bytes[index] - UInt8(ascii: "0")); digits += 1 } else { scale += 1 }
            index += 1
        }
        guard digits > 0 || scale > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var fractionDigits = 0
            while index < bytes.count, isDigit(bytes[index]) {
                if digits < 18 { mantissa = mantissa * 10 + Int64(bytes[index] - UInt8(ascii: "0")); digits += 1; scale -= 1 }
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var exponent = 0, exponentDigits = 0
            while index < bytes.count, isDigit(bytes[index]) {
                if exponent < 10_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0 else { return nil }
            scale += exponentNegative ? -exponent : exponent
        }
        guard abs(scale) < 300 else { return nil }
        var value = Double(mantissa)
        // Dividing by an exact power of ten, not multiplying by an inexact tenth: 61.234 reads as 61.234.
        if scale < 0 { value /= pow10(-scale) } else if scale > 0 { value *= pow10(scale) }
        return negative ? -value : value
    }

    private func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<exponent { result *= 10 }
        return result
    }

    /// Skips one value of any kind; false if there is none.
    mutating func skipValue(depth: Int = 0) -> Bool {
        guard depth < 32, let next = peek() else { return false }
        switch next {
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "{"):
            index += 1
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                guard skipString(), take(UInt8(ascii: ":")), skipValue(depth: depth + 1) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                guard skipValue(depth: depth + 1) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number() != nil
        }
    }

    /// Steps over a string without decoding it: its escapes are checked, not read.
    private mutating func skipString() -> Bool {
        if plainString() != nil { return true }
        guard take(UInt8(ascii: "\"")) else { return false }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return true
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return false }
                let escape = bytes[index]
                index += 1
                if escape == UInt8(ascii: "u") {
                    guard hex4() != nil else { return false }
                } else {
                    guard "\"\\/bfnrt".utf8.contains(escape) else { return false }
                }
            case 0..<0x20: return false
            default: continue
            }
        }
        return false
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }
}
