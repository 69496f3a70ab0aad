#if canImport(Glibc)
import Glibc
#endif
import CLiblo
import SystemPackage

/// Where a packet came from, or goes: an IPv4 or IPv6 socket address, and over
/// TCP (`--osc-tcp`) the connection it came on, which its replies go back on.
package struct OSCPeer: Sendable, Equatable {
    var storage = sockaddr_storage()
    var length = socklen_t(0)
    /// The TCP connection (`OSCStreams`), numbered from 1; 0 over UDP.
    package internal(set) var stream = 0

    /// Where a reply goes when a message gives `text` as its return address,
    /// as klick's clients write it: a port (on the sender's host), or
    /// `osc.udp://HOST:PORT/` (a host that is no number, as a machine's name
    /// in liblo's URLs: the sender's host). Read here, never by liblo, whose
    /// parser prints to stderr. nil for anything else, and for a numeric host
    /// other than the sender's: a forged sender must not turn replies, a
    /// registration or the beat feed on a third machine.
    /// A sender over TCP is answered on its connection, whatever address it gives.
    package init?(returnAddress text: String, sender: OSCPeer) {
        if sender.stream != 0 {
            self = sender
            return
        }
        func port(_ digits: Substring) -> UInt16? {
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                  let number = UInt16(digits), number > 0 else { return nil }
            return number
        }
        if let number = port(Substring(text)) {
            self = sender.with(port: number)
            return
        }
        guard text.hasPrefix("osc.udp://") else { return nil }
        var rest = text.dropFirst("osc.udp://".count)
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        let host: Substring, portText: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix(":") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            portText = rest[rest.index(close, offsetBy: 2)...]
        } else {
            guard let colon = rest.lastIndex(of: ":") else { return nil }
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        }
        guard let number = port(portText), !host.isEmpty else { return nil }
        let onSendersHost = sender.with(port: number)
        if let peer = OSCPeer(host: String(host), port: String(number)) {
            // On a socket of both families (`--osc-host ::`) an IPv4 sender comes as ::ffff:a.b.c.d,
            // and names itself a.b.c.d: the same host.
            guard peer == onSendersHost || peer.mappedToIPv6 == onSendersHost else { return nil }
        }
        self = onSendersHost
    }

    /// An IPv4 address as IPv6 gives it on a socket of both families (::ffff:a.b.c.d), the same port; nil for any other.
    var mappedToIPv6: OSCPeer? {
        guard Int32(storage.ss_family) == AF_INET else { return nil }
        var address = storage
        let (ipv4, port) = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ($0.pointee.sin_addr, $0.pointee.sin_port) }
        }
        var mapped = OSCPeer()
        withUnsafeMutablePointer(to: &mapped.storage) {
            $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { six in
                six.pointee.sin6_family = sa_family_t(AF_INET6)
                six.pointee.sin6_port = port
                withUnsafeMutableBytes(of: &six.pointee.sin6_addr) { bytes in
                    bytes[10] = 0xFF
                    bytes[11] = 0xFF
                    withUnsafeBytes(of: ipv4) { for index in 0..<4 { bytes[12 + index] = $0[index] } }
                }
            }
        }
        mapped.length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        return mapped
    }

    /// This peer's host at another port.
    package func with(port: UInt16) -> OSCPeer {
        var peer = self
        withUnsafeMutablePointer(to: &peer.storage) { pointer in
            if Int32(pointer.pointee.ss_family) == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = port.bigEndian }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = port.bigEndian }
            }
        }
        return peer
    }

    /// The peer at numeric `host` and `port`; nil if they are not numbers.
    package init?(host: String, port: String) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        memcpy(&storage, first.pointee.ai_addr, Int(first.pointee.ai_addrlen))
        length = first.pointee.ai_addrlen
    }

    init() {}

    /// The same family, address and port, and the same connection.
    package static func == (left: OSCPeer, right: OSCPeer) -> Bool {
        guard left.length == right.length, left.stream == right.stream else { return false }
        var a = left.storage, b = right.storage
        return memcmp(&a, &b, Int(left.length)) == 0
    }

    /// `HOST:PORT`, numeric, as a line shows it.
    package var description: String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST)), service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        var address = storage
        let failed = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard failed == 0 else { return "?" }
        func text(_ characters: [CChar]) -> String {
            String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return "\(text(host)):\(text(service))"
    }
}

/// An OSC server's UDP socket, bound to one address (loopback unless asked),
/// never blocking: packets are taken when the loop wakes, replies sent from
/// the same port (as klick's are). Owns its descriptor.
package final class OSCSocket {
    package let descriptor: Int32
    /// The port it is bound to (the one asked, or the one given for 0).
    package let port: Int
    /// Packets read that were not OSC (malformed, a bundle too deep): counted and dropped.
    package private(set) var malformed = 0
    /// Where a packet is read: allocated last in `init`, once nothing can throw (a failed
    /// init runs no `deinit`, and ASan found the buffer of a port in use leaked).
    private let buffer: UnsafeMutableRawBufferPointer

    /// A socket bound to `host` (a numeric address) and `port` (0: any free one).
    package init(host: String, port: Int) throws {
        (descriptor, self.port) = try Self.bound(host: host, port: port, type: SOCK_DGRAM)
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
    }

    /// A non-blocking socket of `type` bound to `host` and `port`, and the port it has.
    /// Over TCP (`--osc-tcp`) it is `listen`ing, and may take a port still in TIME_WAIT
    /// after a run a moment ago, as servers do; a port another process listens on is in use.
    static func bound(host: String, port: Int, type: __socket_type) throws -> (descriptor: Int32, port: Int) {
        let proto = type == SOCK_STREAM ? " (TCP)" : ""
        guard (0...65_535).contains(port) else { throw OSCError(.unavailable, "--osc \(port) is no port: one from 1 to 65535") }
        guard let address = OSCPeer(host: host, port: String(port)) else {
            throw OSCError(.badAddress, "--osc-host '\(host)' is no numeric address (127.0.0.1, ::1, 0.0.0.0)")
        }
        var bound = address.storage
        let family = Int32(bound.ss_family)
        let descriptor = socket(family, Int32(type.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw OSCError(.unavailable, "the OSC server cannot open a socket\(proto): \(Errno(rawValue: errno))") }
        if type == SOCK_STREAM {
            var on: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        let status = withUnsafePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, address.length) }
        }
        guard status == 0, type != SOCK_STREAM || listen(descriptor, 16) == 0 else {
            let reason = errno
            close(descriptor)
            let what = reason == EADDRINUSE ? "is in use" : reason == EADDRNOTAVAIL ? "is no address of this machine's" : "cannot be had: \(Errno(rawValue: reason))"
            throw OSCError(reason == EADDRNOTAVAIL ? .badAddress : .unavailable,
                           reason == EADDRNOTAVAIL ? "--osc-host '\(host)' \(what)" : "OSC port \(port)\(proto) on \(host) \(what)")
        }
        var actual = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let portInNetworkOrder: UInt16 = withUnsafePointer(to: &actual) { pointer in
            family == AF_INET6
                ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        return (descriptor, Int(UInt16(bigEndian: portInNetworkOrder)))
    }

    deinit {
        close(descriptor)
        buffer.deallocate()
    }

    /// The messages of the next packet waiting and who sent it; nil when none waits.
    /// A malformed packet is counted and gives no messages.
    package func receive() -> (messages: [OSCMessage], sender: OSCPeer)? {
        var sender = OSCPeer()
        sender.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let size = withUnsafeMutablePointer(to: &sender.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(descriptor, buffer.baseAddress, buffer.count, 0, $0, &sender.length)
            }
        }
        guard size >= 0 else { return nil }
        guard let messages = OSCMessage.decode(UnsafeRawBufferPointer(rebasing: buffer[0..<size])) else {
            malformed += 1
            return ([], sender)
        }
        return (messages, sender)
    }

    /// Sends `message` to `peer` from this socket's port; a peer that is gone or a full buffer loses it.
    package func send(_ message: OSCMessage, to peer: OSCPeer) {
        send(packet: message.encoded(), to: peer)
    }

    /// Sends the bytes of a packet (a message or a bundle) to `peer`, as `send(_:to:)`.
    package func send(packet bytes: [UInt8], to peer: OSCPeer) {
        var address = peer.storage
        _ = bytes.withUnsafeBytes { packet in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, packet.baseAddress, packet.count, Int32(MSG_DONTWAIT), $0, peer.length)
                }
            }
        }
    }
}
