import CLiblo

/// One argument of an OSC message, by its type tag.
package enum OSCArgument: Sendable, Equatable {
    case int32(Int32)
    case int64(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    /// Any other type (a timetag, true, false, nil, …), by its tag. A blob refuses the packet.
    case other(UInt8)

    /// The number it carries, where one is expected: `,i`, `,h`, `,f` and `,d` as klick's
    /// library takes them; nil for any other type.
    package var number: Double? {
        switch self {
        case .int32(let value): Double(value)
        case .int64(let value): Double(value)
        case .float(let value): Double(value)
        case .double(let value): value
        case .string, .other: nil
        }
    }

    package var text: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

/// An OSC message: its address pattern and its arguments. Decoded and encoded
/// by liblo; bundles are opened here, a bundle in a bundle in a bundle at most.
package struct OSCMessage: Sendable, Equatable {
    package let path: String
    package let arguments: [OSCArgument]

    package init(_ path: String, _ arguments: [OSCArgument] = []) {
        self.path = path
        self.arguments = arguments
    }

    /// How deep bundles may nest: deeper is a malformed packet.
    package static let deepestBundle = 3
    /// The most messages a packet may hold: more is a flood, taken as a malformed packet.
    package static let mostMessages = 256

    /// The messages of one packet (a message, or a bundle of them), or nil for
    /// a malformed packet (or one of more than 256 messages): nothing of it is taken.
    package static func decode(_ packet: UnsafeRawBufferPointer) -> [OSCMessage]? {
        var messages: [OSCMessage] = []
        return decode(packet, depth: 0, into: &messages) ? messages : nil
    }

    private static func decode(_ packet: UnsafeRawBufferPointer, depth: Int, into messages: inout [OSCMessage]) -> Bool {
        guard packet.count >= 4, packet.count % 4 == 0, let base = packet.baseAddress else { return false }
        if packet.count >= 16, packet.prefix(8).elementsEqual("#bundle\0".utf8) {
            guard depth < deepestBundle else { return false }
            // "#bundle", a timetag, then elements each after its size (big-endian).
            var offset = 16
            while offset < packet.count {
                guard offset + 4 <= packet.count else { return false }
                let size = Int(UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                offset += 4
                guard size > 0, size <= packet.count - offset,
                      decode(UnsafeRawBufferPointer(rebasing: packet[offset..<offset + size]), depth: depth + 1, into: &messages) else { return false }
                offset += size
            }
            return true
        }
        guard messages.count < mostMessages, packet[0] == UInt8(ascii: "/"), let end = packet.firstIndex(of: 0) else { return false }
        // A blob is refused before liblo sees it: liblo 0.31 reads a blob's size without checking there is one.
        let tagsStart = (end + 4) & ~3
        if tagsStart < packet.count, let tagsEnd = packet[tagsStart...].firstIndex(of: 0),
           packet[tagsStart..<tagsEnd].contains(UInt8(ascii: "b")) { return false }
        var result: Int32 = 0
        // liblo reads but does not write the data; its signature is not const.
        guard let message = lo_message_deserialise(UnsafeMutableRawPointer(mutating: base), packet.count, &result) else { return false }
        defer { lo_message_free(message) }
        let path = String(decoding: packet[0..<end], as: UTF8.self)
        let count = Int(lo_message_get_argc(message))
        var arguments: [OSCArgument] = []
        arguments.reserveCapacity(count)
        if count > 0, let types = lo_message_get_types(message), let values = lo_message_get_argv(message) {
            for index in 0..<count {
                let tag = UInt8(bitPattern: types[index])
                // liblo gives no value for the types that carry none (T, F, N, I): only those with one are read,
                // each where it lies, 4-byte aligned (never as the 8-byte-aligned union it is typed as).
                guard [UInt8(ascii: "i"), UInt8(ascii: "h"), UInt8(ascii: "f"), UInt8(ascii: "d"),
                       UInt8(ascii: "s"), UInt8(ascii: "S")].contains(tag) else {
                    arguments.append(.other(tag))
                    continue
                }
                guard let value = values[index].map(UnsafeRawPointer.init) else { return false }
                switch tag {
                case UInt8(ascii: "i"): arguments.append(.int32(value.loadUnaligned(as: Int32.self)))
                case UInt8(ascii: "h"): arguments.append(.int64(value.loadUnaligned(as: Int64.self)))
                case UInt8(ascii: "f"): arguments.append(.float(Float(bitPattern: value.loadUnaligned(as: UInt32.self))))
                case UInt8(ascii: "d"): arguments.append(.double(Double(bitPattern: value.loadUnaligned(as: UInt64.self))))
                default: arguments.append(.string(String(cString: value.assumingMemoryBound(to: CChar.self))))
                }
            }
        }
        messages.append(OSCMessage(path, arguments))
        return messages.count <= mostMessages
    }

    /// The message alone in a bundle timetagged `timetag` (OSC's NTP time): "#bundle",
    /// the timetag and the message after its size, each big-endian.
    package func bundled(at timetag: UInt64) -> [UInt8] {
        let message = encoded()
        var bytes = Array("#bundle\0".utf8)
        withUnsafeBytes(of: timetag.bigEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt32(message.count).bigEndian) { bytes += $0 }
        return bytes + message
    }

    /// The message as a packet, encoded by liblo.
    package func encoded() -> [UInt8] {
        guard let message = lo_message_new() else { return [] }
        defer { lo_message_free(message) }
        for argument in arguments {
            switch argument {
            case .int32(let value): lo_message_add_int32(message, value)
            case .int64(let value): lo_message_add_int64(message, value)
            case .float(let value): lo_message_add_float(message, value)
            case .double(let value): lo_message_add_double(message, value)
            case .string(let value): lo_message_add_string(message, value)
            case .other: continue
            }
        }
        let length = lo_message_length(message, path)
        var bytes = [UInt8](repeating: 0, count: length)
        bytes.withUnsafeMutableBytes { _ = lo_message_serialise(message, path, $0.baseAddress, nil) }
        return bytes
    }
}
