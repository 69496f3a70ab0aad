#if canImport(Glibc)
import Glibc
#endif
import CLiblo
import SystemPackage

/// `--osc-tcp`: OSC over TCP on the OSC port, beside UDP. A listener and its
/// connections, 16 at most, none ever blocking: packets are taken when the loop
/// wakes, framed as each connection frames them (`OSCStreamFrames`), and replies
/// go back on the connection they answer. A connection that breaks its framing,
/// or whose peer stops reading until a reply no longer fits, is closed: a peer
/// never holds up the picture or the audio. Owns its descriptors.
package final class OSCStreams {
    package static let mostConnections = 16

    /// The listening socket.
    package let listener: Int32
    /// The port it listens on (the one asked, or the one given for 0).
    package let port: Int
    /// An epoll set of the listener and every connection: readable when any of them is,
    /// so the loop's `poll` wakes on one descriptor for all of them.
    package let descriptor: Int32

    private final class Connection {
        let socket: Int32
        let peer: OSCPeer
        var frames = OSCStreamFrames()
        init(socket: Int32, peer: OSCPeer) {
            self.socket = socket
            self.peer = peer
        }
    }

    private var connections: [Connection] = []
    private var numbered = 0
    /// Which connection is read first at the next `receive`: each in turn, so one busy peer starves none.
    private var turn = 0
    /// The connections closed since `takeClosed()`: their registrations are dropped.
    private var closed: [OSCPeer] = []
    /// Connections accepted; turned away (16 open already); closed for breaking their framing
    /// or for not reading their replies; packets that were not OSC.
    package private(set) var accepted = 0
    package private(set) var turnedAway = 0
    package private(set) var broken = 0
    package private(set) var stalled = 0
    package private(set) var malformed = 0
    private let buffer: UnsafeMutableRawBufferPointer

    /// Listens on `host` (a numeric address) and `port` (0: any free one).
    package init(host: String, port: Int) throws {
        (listener, self.port) = try OSCSocket.bound(host: host, port: port, type: SOCK_STREAM)
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else {
            let reason = errno
            close(listener)
            throw OSCError(.unavailable, "the OSC server cannot wait on TCP: \(Errno(rawValue: reason))")
        }
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: OSCStreamFrames.largestPacket, alignment: 8)
        watch(listener)
    }

    deinit {
        for connection in connections { close(connection.socket) }
        close(listener)
        close(descriptor)
        buffer.deallocate()
    }

    private func watch(_ socket: Int32) {
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: socket))
        epoll_ctl(descriptor, EPOLL_CTL_ADD, socket, &event)
    }

    /// The messages of the next whole packet on any connection, and which one; nil when none waits.
    /// New connections are accepted first. A malformed packet gives no messages.
    package func receive() -> (messages: [OSCMessage], sender: OSCPeer)? {
        acceptWaiting()
        let count = connections.count
        guard count > 0 else { return nil }
        for offset in 0..<count {
            let connection = connections[(turn + offset) % count]
            if let packet = take(from: connection) {
                turn = (turn + offset + 1) % count
                guard let messages = packet.withUnsafeBytes({ OSCMessage.decode($0) }) else {
                    malformed += 1
                    return ([], connection.peer)
                }
                return (messages, connection.peer)
            }
        }
        // Closed connections leave the list here, once none of them is being walked.
        connections.removeAll { closed.contains($0.peer) }
        return nil
    }

    /// The next packet from `connection`: one already read, else one after a read; nil if none, or if it closed.
    private func take(from connection: Connection) -> [UInt8]? {
        guard !closed.contains(connection.peer) else { return nil }
        var read = false
        while true {
            switch connection.frames.next() {
            case .packet(let packet):
                return packet
            case .broken:
                broken += 1
                end(connection)
                return nil
            case .none:
                guard !read else { return nil }
                read = true
                let size = recv(connection.socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                if size > 0 {
                    connection.frames.append(UnsafeRawBufferPointer(rebasing: buffer[0..<size]))
                } else if size == 0 || errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                    // The peer closed, or the connection failed: what it left unfinished is dropped.
                    end(connection)
                    return nil
                } else {
                    return nil
                }
            }
        }
    }

    private func acceptWaiting() {
        for _ in 0..<Self.mostConnections {
            var peer = OSCPeer()
            peer.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let socket = withUnsafeMutablePointer(to: &peer.storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept(listener, $0, &peer.length)
                }
            }
            guard socket >= 0 else { return }
            // accept4, which would set both at once, is GNU's and not in Swift's Glibc.
            _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
            guard connections.count < Self.mostConnections else {
                turnedAway += 1
                close(socket)
                continue
            }
            // Replies are small and each is wanted at once: not held back to be sent with the next.
            var on: Int32 = 1
            setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            numbered += 1
            peer.stream = numbered
            accepted += 1
            connections.append(Connection(socket: socket, peer: peer))
            watch(socket)
        }
    }

    /// Closes `connection` (which leaves the epoll set with its descriptor) and remembers its peer.
    private func end(_ connection: Connection) {
        close(connection.socket)
        closed.append(connection.peer)
    }

    /// The peers whose connections closed since this was last asked.
    package func takeClosed() -> [OSCPeer] {
        connections.removeAll { closed.contains($0.peer) }
        defer { closed.removeAll() }
        return closed
    }

    /// Sends the bytes of a packet to `peer` on its connection, framed as that connection frames;
    /// a connection gone loses it. One whose peer has not read enough for it to fit whole is
    /// closed rather than waited for: half a frame would break every packet after it.
    package func send(packet bytes: [UInt8], to peer: OSCPeer) {
        guard let connection = connections.first(where: { $0.peer == peer }), !closed.contains(peer) else { return }
        let framed = OSCStreamFrames.frame(bytes, connection.frames.framing ?? .sized)
        let sent = framed.withUnsafeBytes { Glibc.send(connection.socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        guard sent == framed.count else {
            stalled += 1
            end(connection)
            return
        }
    }
}
