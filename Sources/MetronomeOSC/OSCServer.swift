#if canImport(Glibc)
import Glibc
#endif
import CLiblo
import MetronomeSupport

/// klick's OSC server over one UDP socket, and TCP's connections with `--osc-tcp`: the packets waiting each wake, read
/// as requests; replies to a sender or a return address; the clients
/// registered for notifications, each told what changed since it was last
/// told. Bounded a wake, so a flood never holds up the picture: 64 packets,
/// 256 messages, 192 replies and notifications; the rest wait or are dropped.
package final class OSCServer {
    package let socket: OSCSocket
    /// `--osc-tcp`: the connections over TCP, on the same port.
    package let streams: OSCStreams?
    /// What the loop's `poll` waits on: the UDP socket, or with TCP an epoll set of it and the connections' set.
    package let descriptor: Int32
    /// `--osc-allow-files`: messages that name a file are considered, not refused outright.
    package let filesAllowed: Bool
    /// The clients registered (`/klick/register_client`), 16 at most: a 17th replaces none.
    package private(set) var clients: [OSCPeer] = []
    package static let mostClients = 16
    /// The beat feed's subscribers (`/metronome/subscribe`), 16 at most.
    package private(set) var subscribers: [OSCPeer] = []
    /// Messages taken; those refused (their types, a return address that is none);
    /// those answered with an error (no counterpart here); replies dropped over a wake's budget.
    package private(set) var taken = 0
    package private(set) var refused = 0
    package private(set) var unsupported = 0
    package private(set) var repliesDropped = 0
    private var budget = 0
    /// Requests for the run (keys, tempo, volume, meter) a wake, fewer than the audio thread's
    /// command queue holds (255): the rest of a flood of them are dropped, counted.
    package static let mostActedAWake = 32
    private var acted = 0
    package private(set) var actionsDropped = 0
    /// The state registered clients were last told of.
    private var told: KlickState?

    package init(socket: OSCSocket, streams: OSCStreams? = nil, filesAllowed: Bool) {
        self.socket = socket
        self.streams = streams
        self.filesAllowed = filesAllowed
        guard let streams else {
            descriptor = socket.descriptor
            return
        }
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        for watched in [socket.descriptor, streams.descriptor] {
            var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: watched))
            epoll_ctl(descriptor, EPOLL_CTL_ADD, watched, &event)
        }
    }

    deinit {
        if streams != nil, descriptor >= 0 { close(descriptor) }
    }

    /// Takes the packets waiting and hands each request for the run to `act`, with who sent it;
    /// queries, pings and registrations are answered here, from `state()` as it is then.
    package func takeWaiting(state: () -> KlickState, status: () -> MetronomeStatus, act: (OSCRequest, OSCPeer) -> Void) {
        budget = 192
        acted = 0
        var messagesTaken = 0
        defer { forgetClosed() }
        for index in 0..<64 where messagesTaken < 256 {
            // UDP and TCP in turn: a flood on one leaves the other its share.
            let first = index.isMultiple(of: 2) ? socket.receive() : streams?.receive()
            guard let (messages, sender) = first ?? (index.isMultiple(of: 2) ? streams?.receive() : socket.receive()) else { return }
            messagesTaken += messages.count
            taken += messages.count
            for message in messages {
                guard let request = KlickNamespace.request(for: message, filesAllowed: filesAllowed) else { continue }
                handle(request, from: sender, state: state, status: status, act: act)
            }
        }
    }

    private func handle(_ request: OSCRequest, from sender: OSCPeer, state: () -> KlickState, status: () -> MetronomeStatus,
                        act: (OSCRequest, OSCPeer) -> Void) {
        /// The return address given, else the sender; nil (refused) for one that is none.
        func peer(_ text: String?) -> OSCPeer? {
            guard let text else { return sender }
            guard let peer = OSCPeer(returnAddress: text, sender: sender) else {
                refused += 1
                return nil
            }
            return peer
        }
        switch request {
        case .ping(let replyTo):
            if let peer = peer(replyTo) { send(OSCMessage("/klick/pong"), to: peer) }
        case .check(let replyTo):
            if let peer = peer(replyTo) { send(OSCMessage("/klick/ready"), to: peer) }
        case .register(let address):
            if let peer = peer(address) { add(peer, to: &clients, path: "/klick/register_client", what: "registered") }
        case .unregister(let address):
            if let peer = peer(address) { clients.removeAll { $0 == peer } }
        case .subscribe(let address):
            if let peer = peer(address) { add(peer, to: &subscribers, path: "/metronome/subscribe", what: "subscribed") }
        case .unsubscribe(let address):
            if let peer = peer(address) { subscribers.removeAll { $0 == peer } }
        case .query(let part, let replyTo):
            guard let peer = peer(replyTo) else { return }
            for reply in KlickNamespace.replies(to: part, state: state()) { send(reply, to: peer) }
        case .unsupported(let path, let reason):
            unsupported += 1
            send(OSCMessage(KlickNamespace.errorPath, [.string(path), .string(reason)]), to: sender)
        case .refused:
            refused += 1
        case .metronomeType(let type):
            let current = state().type
            if type != current.rawValue {
                unsupported += 1
                let reason = ["simple", "map", "jack"].contains(type)
                    ? "this run plays a \(current.rawValue) metronome: its kind is chosen at the start"
                    : "'\(type)' is none of simple, map, jack"
                send(OSCMessage(KlickNamespace.errorPath, [.string("/klick/metro/set_type"), .string(reason)]), to: sender)
            }
        case .status(let replyTo):
            if let peer = peer(replyTo) { send(status().message, to: peer) }
        case .quit, .control, .volume, .meter, .song, .loadMap:
            guard acted < Self.mostActedAWake else {
                actionsDropped += 1
                return
            }
            acted += 1
            act(request, sender)
            // Told at once, as klick tells them: a stop and a start taken in one wake are two changes.
            notify(state(), status())
        }
    }

    /// A registration or subscription over a TCP connection ends with the connection.
    private func forgetClosed() {
        guard let streams else { return }
        for peer in streams.takeClosed() {
            clients.removeAll { $0 == peer }
            subscribers.removeAll { $0 == peer }
        }
    }

    /// Adds `peer` to `list` (registered clients, the feed's subscribers) once; the 17th is told there is no room.
    private func add(_ peer: OSCPeer, to list: inout [OSCPeer], path: String, what: String) {
        guard !list.contains(where: { $0 == peer }) else { return }
        guard list.count < Self.mostClients else {
            send(OSCMessage(KlickNamespace.errorPath, [.string(path), .string("\(Self.mostClients) clients are \(what) already")]), to: peer)
            return
        }
        list.append(peer)
    }

    /// Tells each registered client what changed since they were last told (nothing the first time):
    /// klick's messages, and `/metronome/status` when anything but the bar and beat moved;
    /// within what is left of the wake's budget (a change it has no room for waits for the next wake).
    package func notify(_ state: KlickState, _ status: MetronomeStatus) {
        var messages = told.map { KlickNamespace.notifications(from: $0, to: state) } ?? []
        if let toldStatus, status.differs(from: toldStatus) { messages.append(status.message) }
        // All or nothing: what the budget leaves no room for now is told at the next wake.
        guard messages.count * clients.count <= budget else { return }
        for message in messages {
            for client in clients { send(message, to: client) }
        }
        told = state
        toldStatus = status
    }

    /// The status registered clients were last told of.
    private var toldStatus: MetronomeStatus?

    /// Sends each subscriber of the beat feed `beat` in a bundle timetagged with the NTP time
    /// at which it will be heard, `heard` on the monotonic clock. Outside the wake's budget:
    /// a flood of requests never costs the feed a beat.
    package func feed(_ beat: OSCMessage, heard: MonotonicInstant) {
        guard !subscribers.isEmpty else { return }
        let packet = beat.bundled(at: OSCTime.ntp(of: heard))
        for subscriber in subscribers { send(packet: packet, to: subscriber) }
        fed += 1
        forgetClosed()
    }

    /// Beats sent to the feed's subscribers.
    package private(set) var fed = 0

    /// Answers the sender of a request the loop could not carry out.
    package func refuse(_ path: String, because reason: String, to peer: OSCPeer) {
        unsupported += 1
        send(OSCMessage(KlickNamespace.errorPath, [.string(path), .string(reason)]), to: peer)
    }

    private func send(_ message: OSCMessage, to peer: OSCPeer) {
        guard budget > 0 else {
            repliesDropped += 1
            return
        }
        budget -= 1
        send(packet: message.encoded(), to: peer)
    }

    private func send(packet: [UInt8], to peer: OSCPeer) {
        if peer.stream != 0 {
            streams?.send(packet: packet, to: peer)
        } else {
            socket.send(packet: packet, to: peer)
        }
    }

    /// Packets that were not OSC, over UDP and TCP.
    package var malformed: Int { socket.malformed + (streams?.malformed ?? 0) }

    /// `--verbose`'s line at the end.
    package var summary: String {
        "osc: \(taken) message\(taken == 1 ? "" : "s") taken, \(refused) refused, \(unsupported) answered with an error, "
            + "\(fed) beat\(fed == 1 ? "" : "s") fed, \(malformed) malformed packet\(malformed == 1 ? "" : "s") dropped, "
            + (streams.map { "\($0.accepted) TCP connection\($0.accepted == 1 ? "" : "s") taken, \($0.turnedAway) turned away, \($0.broken + $0.stalled) closed for breaking their framing or not reading, " } ?? "")
            + "\(repliesDropped) repl\(repliesDropped == 1 ? "y" : "ies") and \(actionsDropped) action\(actionsDropped == 1 ? "" : "s") over a wake's budget dropped"
    }
}
