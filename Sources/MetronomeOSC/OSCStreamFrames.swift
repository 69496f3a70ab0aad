/// OSC over a byte stream (TCP): the packets of one connection, framed as OSC 1.0
/// frames them (each after its size, 4 bytes big-endian) or as OSC 1.1 does (SLIP:
/// each between END bytes, 0xC0). The two are told apart by the connection's first
/// byte: a size begins with 0 for any packet we take, a SLIP frame with END.
/// Pure: bytes in, packets out.
package struct OSCStreamFrames {
    package enum Framing: Sendable, Equatable {
        /// OSC 1.0: each packet after its size.
        case sized
        /// OSC 1.1: SLIP, RFC 1055, each packet between two ENDs.
        case slip
    }

    /// What `next()` found.
    package enum Next: Equatable {
        case packet([UInt8])
        /// No whole packet yet.
        case none
        /// The stream broke its framing (a size of 0, over 64 KiB or not a multiple of 4;
        /// a SLIP frame over 64 KiB or a bad escape): nothing after it can be read.
        case broken
    }

    /// The largest packet taken, as over UDP.
    package static let largestPacket = 65_536
    static let end: UInt8 = 0xC0, escape: UInt8 = 0xDB, escapedEnd: UInt8 = 0xDC, escapedEscape: UInt8 = 0xDD

    /// The connection's framing, once its first byte came.
    package private(set) var framing: Framing?
    private var bytes: [UInt8] = []
    /// Where the bytes not yet taken begin: taken bytes are dropped only when they are most of them.
    private var start = 0

    package init() {}

    /// Bytes not yet taken as a packet.
    package var waiting: Int { bytes.count - start }

    /// Bytes as they came from the connection.
    package mutating func append(_ received: UnsafeRawBufferPointer) {
        if start > 0, start >= bytes.count / 2 {
            bytes.removeFirst(start)
            start = 0
        }
        bytes.append(contentsOf: received)
    }

    /// The next whole packet, if one came.
    package mutating func next() -> Next {
        guard start < bytes.count else { return .none }
        if framing == nil { framing = bytes[start] == Self.end ? .slip : .sized }
        switch framing {
        case .sized: return nextSized()
        default: return nextSLIP()
        }
    }

    private mutating func nextSized() -> Next {
        guard waiting >= 4 else { return .none }
        let size = bytes[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
        guard size > 0, size <= Self.largestPacket, size % 4 == 0 else { return .broken }
        guard waiting >= 4 + size else { return .none }
        let packet = Array(bytes[start + 4..<start + 4 + size])
        start += 4 + size
        return .packet(packet)
    }

    private mutating func nextSLIP() -> Next {
        // ENDs between packets (OSC 1.1 sends one on each side) are no packets.
        while start < bytes.count, bytes[start] == Self.end { start += 1 }
        guard let close = bytes[start...].firstIndex(of: Self.end) else {
            return waiting > 2 * Self.largestPacket ? .broken : .none
        }
        var packet: [UInt8] = []
        packet.reserveCapacity(close - start)
        var index = start
        while index < close {
            let byte = bytes[index]
            index += 1
            guard byte == Self.escape else {
                packet.append(byte)
                continue
            }
            guard index < close else { return .broken }
            switch bytes[index] {
            case Self.escapedEnd: packet.append(Self.end)
            case Self.escapedEscape: packet.append(Self.escape)
            default: return .broken
            }
            index += 1
        }
        start = close + 1
        guard packet.count <= Self.largestPacket else { return .broken }
        return .packet(packet)
    }

    /// `packet` framed for a connection that frames as `framing`.
    package static func frame(_ packet: [UInt8], _ framing: Framing) -> [UInt8] {
        switch framing {
        case .sized:
            let size = UInt32(packet.count)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + packet
        case .slip:
            var framed: [UInt8] = [end]
            framed.reserveCapacity(packet.count + 2)
            for byte in packet {
                switch byte {
                case end: framed += [escape, escapedEnd]
                case escape: framed += [escape, escapedEscape]
                default: framed.append(byte)
                }
            }
            framed.append(end)
            return framed
        }
    }
}
