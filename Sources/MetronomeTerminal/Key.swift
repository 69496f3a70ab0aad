/// A key the player pressed, decoded from the bytes a terminal sends.
package enum Key: Equatable, Sendable {
    case up, down, left, right, pageUp, pageDown
    case escape
    /// Any other single byte: letters, digits, space, `+`, `-`, `?`.
    case character(UInt8)

    /// The keys in `bytes`, in order. Arrows come as `ESC [ A` or `ESC O A`,
    /// PgUp/PgDn as `ESC [ 5 ~` / `ESC [ 6 ~`; a lone ESC is Escape; other
    /// escape sequences are passed over whole.
    package static func decode(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard byte == 0x1B else {
                keys.append(.character(byte))
                continue
            }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O") else {
                keys.append(.escape)
                continue
            }
            // CSI or SS3: parameters, then one final byte in @...~.
            index += 1
            var parameters: [UInt8] = []
            while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) {
                parameters.append(bytes[index])
                index += 1
            }
            guard index < bytes.count else { break }
            let final = bytes[index]
            index += 1
            switch (final, parameters) {
            case (UInt8(ascii: "A"), _): keys.append(.up)
            case (UInt8(ascii: "B"), _): keys.append(.down)
            case (UInt8(ascii: "C"), _): keys.append(.right)
            case (UInt8(ascii: "D"), _): keys.append(.left)
            case (UInt8(ascii: "~"), [UInt8(ascii: "5")]): keys.append(.pageUp)
            case (UInt8(ascii: "~"), [UInt8(ascii: "6")]): keys.append(.pageDown)
            default: break
            }
        }
        return keys
    }
}
