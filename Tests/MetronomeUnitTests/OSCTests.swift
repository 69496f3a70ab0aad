import Foundation
import Testing
import MetronomeTiming
import MetronomeOSC
import MetronomeTestSupport

/// OSC's packets (decoded by liblo, bundles opened here), its socket, and
/// klick's namespace as requests.
@Suite struct OSCTests {
    /// An OSC string: its bytes, a NUL, padded to four.
    func padded(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8) + [0]
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    /// A message written out by hand, as the OSC 1.0 specification lays it out.
    func message(_ path: String, _ tags: String, _ data: [UInt8]) -> [UInt8] { padded(path) + padded("," + tags) + data }

    func bundle(_ elements: [[UInt8]]) -> [UInt8] {
        padded("#bundle") + bigEndian(UInt64(1)) + elements.flatMap { bigEndian(UInt32($0.count)) + $0 }
    }

    func decode(_ bytes: [UInt8]) -> [OSCMessage]? { bytes.withUnsafeBytes { OSCMessage.decode($0) } }

    @Test func messagesWrittenByHandDecodeWithEveryNumberType() {
        let tempo = message("/klick/simple/set_tempo", "f", bigEndian(Float(133.5).bitPattern))
        #expect(decode(tempo) == [OSCMessage("/klick/simple/set_tempo", [.float(133.5)])])
        let mixed = message("/m", "ihds", bigEndian(Int32(-7)) + bigEndian(Int64(1) << 40) + bigEndian(Double(2.25).bitPattern) + padded("x"))
        #expect(decode(mixed) == [OSCMessage("/m", [.int32(-7), .int64(1 << 40), .double(2.25), .string("x")])])
        #expect(decode(message("/klick/ping", "", [])) == [OSCMessage("/klick/ping")])
        // Types that carry no value, beside one that does, after it and before it (an int64 at a 4-byte offset).
        let flags = message("/t", "TiNhF", bigEndian(Int32(5)) + bigEndian(Int64(-2)))
        #expect(decode(flags) == [OSCMessage("/t", [.other(UInt8(ascii: "T")), .int32(5), .other(UInt8(ascii: "N")), .int64(-2),
                                                    .other(UInt8(ascii: "F"))])])
    }

    /// 256 messages in a packet are taken; 257 are a flood, the packet dropped whole.
    @Test func aPacketOfMoreThan256MessagesIsAFlood() {
        let ping = message("/klick/ping", "", [])
        #expect(decode(bundle(Array(repeating: ping, count: 256)))?.count == 256)
        #expect(decode(bundle(Array(repeating: ping, count: 257))) == nil)
        #expect(decode(bundle([bundle(Array(repeating: ping, count: 200)), bundle(Array(repeating: ping, count: 57))])) == nil)
    }

    /// A return address as klick's clients give it: a port on the sender's
    /// host, a URL with a numeric host, or with a name (the sender's host).
    @Test func aReturnAddressIsAPortOrAURL() throws {
        let sender = try #require(OSCPeer(host: "127.0.0.2", port: "5000"))
        #expect(OSCPeer(returnAddress: "9001", sender: sender)?.description == "127.0.0.2:9001")
        #expect(OSCPeer(returnAddress: "osc.udp://127.0.0.2:9002/", sender: sender)?.description == "127.0.0.2:9002")
        #expect(OSCPeer(returnAddress: "osc.udp://stagebox:9004/", sender: sender)?.description == "127.0.0.2:9004")
        let sixSender = try #require(OSCPeer(host: "::1", port: "5000"))
        #expect(OSCPeer(returnAddress: "osc.udp://[::1]:9003", sender: sixSender)?.description == "::1:9003")
        // Another machine's address: no reply, registration or feed goes there on a forged sender's word.
        #expect(OSCPeer(returnAddress: "osc.udp://127.0.0.1:9002/", sender: sender) == nil)
        #expect(OSCPeer(returnAddress: "osc.udp://[::1]:9003", sender: sender) == nil)
        // On a socket of both families, an IPv4 sender is ::ffff:a.b.c.d, and may name itself a.b.c.d; no other host.
        let mappedSender = try #require(OSCPeer(host: "::ffff:127.0.0.2", port: "5000"))
        #expect(OSCPeer(returnAddress: "osc.udp://127.0.0.2:9005/", sender: mappedSender)?.description == "::ffff:127.0.0.2:9005")
        #expect(OSCPeer(returnAddress: "osc.udp://127.0.0.3:9005/", sender: mappedSender) == nil)
        for refused in ["", "0", "65536", "osc.udp:", "osc:", "osc.tcp://127.0.0.1:9000/", "osc.udp://127.0.0.1/", "osc.udp://:9000",
                        "osc.udp://127.0.0.1:x/", "osc.udp://[::1/", "٩٠٠١", "/etc/passwd"] {
            #expect(OSCPeer(returnAddress: refused, sender: sender) == nil, "\(refused)")
        }
    }

    @Test func aBundleIsItsMessagesInOrderAndOneTooDeepIsMalformed() {
        let ping = message("/klick/ping", "", []), tap = message("/klick/simple/tap", "", [])
        #expect(decode(bundle([ping, bundle([tap, ping])])) == [OSCMessage("/klick/ping"), OSCMessage("/klick/simple/tap"), OSCMessage("/klick/ping")])
        #expect(decode(bundle([bundle([bundle([ping])])])) != nil)
        #expect(decode(bundle([bundle([bundle([bundle([ping])])])])) == nil)
        // An element longer than what is left, and a size of zero.
        var truncated = bundle([ping])
        truncated.removeLast(4)
        #expect(decode(truncated) == nil)
        #expect(decode(padded("#bundle") + bigEndian(UInt64(1)) + bigEndian(UInt32(0))) == nil)
    }

    @Test func malformedPacketsAreNilNeverACrash() {
        #expect(decode([]) == nil)
        #expect(decode(Array("/a".utf8)) == nil)
        #expect(decode(padded("no-slash") + padded(",")) == nil)
        #expect(decode(message("/f", "f", [0, 0])) == nil)
        // Whole words, but fewer than the tags ask for: liblo's own check refuses it.
        #expect(decode(message("/f", "ff", [0, 0, 0, 0])) == nil)
        // A blob is refused before liblo reads its size.
        #expect(decode(message("/b", "b", [])) == nil)
        #expect(decode(message("/b", "b", bigEndian(UInt32(4)) + [1, 2, 3, 4])) == nil)
        // Random packets, and random tails on a real one: decoded or refused, never a trap.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...64, using: &generator) * 4
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if Bool.random(using: &generator) { bytes = padded("/x") + padded(",fsi") + bytes }
            _ = decode(bytes)
        }
    }

    @Test func encodedByLibloDecodesToTheSame() {
        let sent = OSCMessage("/klick/simple/meter", [.int32(7), .int32(8), .string("Xxx"), .float(0.5), .double(-1), .int64(-3)])
        #expect(decode(sent.encoded()) == [sent])
    }

    @Test func klicksNamespaceAsRequestsAndItsTypesAsKlickTakesThem() {
        func request(_ path: String, _ arguments: [OSCArgument] = []) -> OSCRequest? { KlickNamespace.request(for: OSCMessage(path, arguments)) }
        #expect(request("/klick/ping") == .ping(replyTo: nil))
        #expect(request("/klick/ping", [.string("osc.udp://127.0.0.1:9001/")]) == .ping(replyTo: "osc.udp://127.0.0.1:9001/"))
        #expect(request("/klick/ping", [.int32(1)]) == .refused)
        #expect(request("/klick/quit") == .quit)
        #expect(request("/klick/quit", [.other(UInt8(ascii: "x"))]) == .refused)
        #expect(request("/klick/metro/start") == .control(.action(.start)))
        #expect(request("/klick/metro/stop") == .control(.action(.stop)))
        #expect(request("/klick/simple/tap") == .control(.action(.tap)))
        for number in [OSCArgument.float(133.5), .double(133.5)] {
            #expect(request("/klick/simple/set_tempo", [number]) == .control(.tempo(Tempo(clamping: 133_500))))
        }
        #expect(request("/klick/simple/set_tempo", [.int32(90)]) == .control(.tempo(Tempo(bpm: 90)!)))
        #expect(request("/klick/simple/set_tempo", [.int64(5_000)]) == .control(.tempo(Tempo(clamping: 1_000_000))))
        #expect(request("/klick/simple/set_tempo", [.string("90")]) == .refused)
        #expect(request("/klick/simple/set_tempo", [.float(-1)]) == .refused)
        #expect(request("/klick/simple/set_tempo", [.float(.nan)]) == .refused)
        #expect(request("/klick/simple/set_tempo") == .refused)
        #expect(request("/elsewhere") == nil)
    }

    @Test func klicksOtherMessagesAsRequests() {
        func request(_ path: String, _ arguments: [OSCArgument] = [], files: Bool = false) -> OSCRequest? {
            KlickNamespace.request(for: OSCMessage(path, arguments), filesAllowed: files)
        }
        #expect(request("/klick/check") == .check(replyTo: nil))
        #expect(request("/klick/register_client") == .register(nil))
        #expect(request("/klick/register_client", [.string("9001")]) == .register("9001"))
        #expect(request("/klick/unregister_client", [.string("9001")]) == .unregister("9001"))
        #expect(request("/klick/register_client", [.float(1)]) == .refused)
        #expect(request("/klick/query") == .query(nil, replyTo: nil))
        for part in KlickPart.allCases {
            #expect(request("/klick/\(part.rawValue)/query", [.string("9002")]) == .query(part, replyTo: "9002"))
        }
        #expect(request("/klick/config/set_volume", [.float(0.25)]) == .volume(percent: 25))
        #expect(request("/klick/config/set_volume", [.int32(3)]) == .volume(percent: 100))
        #expect(request("/klick/simple/set_meter", [.int32(7), .int32(8)]) == .meter(beats: 7, noteValue: 8))
        #expect(request("/klick/simple/set_meter", [.float(3), .double(4)]) == .meter(beats: 3, noteValue: 4))
        #expect(request("/klick/simple/set_meter", [.float(3.5), .int32(4)]) == .refused)
        #expect(request("/klick/simple/set_meter", [.int32(33), .int32(4)]) == .unsupported(path: "/klick/simple/set_meter",
            reason: "a meter has 0 (no bell) to 32 beats over 1, 2, 4, 8, 16 or 32"))
        #expect(request("/klick/simple/set_meter", [.int32(3), .int32(5)]) == .unsupported(path: "/klick/simple/set_meter",
            reason: "a meter has 0 (no bell) to 32 beats over 1, 2, 4, 8, 16 or 32"))
        #expect(request("/klick/simple/tap", [.double(12.5)]) == .control(.action(.tap)))
        #expect(request("/klick/metro/set_type", [.string("map")]) == .metronomeType("map"))
        // A file named by a peer: refused without --osc-allow-files, in so many words.
        let refusal = "a message that opens a file is refused without --osc-allow-files"
        #expect(request("/klick/map/load_file", [.string("/etc/passwd")]) == .unsupported(path: "/klick/map/load_file", reason: refusal))
        #expect(request("/klick/config/set_sound", [.string("a.wav"), .string("b.wav")]) == .unsupported(path: "/klick/config/set_sound", reason: refusal))
        #expect(request("/klick/map/load_file", [.string("songs/waltz.txt")], files: true) == .loadMap("songs/waltz.txt"))
        #expect(request("/klick/map/load_file", [.int32(1)], files: true) == .refused)
        // Every other message of klick's has an answer, and its wrong types are refused.
        for path in ["/klick/simple/set_pattern", "/klick/simple/set_tempo_increment", "/klick/config/set_sound_pitch",
                     "/klick/config/autoconnect", "/klick/map/set_preroll"] {
            #expect(request(path, [.other(UInt8(ascii: "T")), .other(UInt8(ascii: "T")), .other(UInt8(ascii: "T"))]) == .refused, "\(path)")
        }
        #expect(request("/klick/config/set_sound_pitch", [.float(1), .float(1)])
            == .unsupported(path: "/klick/config/set_sound_pitch", reason: "the sounds play at their own pitch"))
    }

    /// Our own namespace: each key's action by its map name, a tempo, a volume and beats per bar.
    @Test func ourNamespaceIsEveryKeysAction() {
        func request(_ path: String, _ arguments: [OSCArgument] = []) -> OSCRequest? { KlickNamespace.request(for: OSCMessage(path, arguments)) }
        let actions: [(String, MIDIMap.Action)] = [("tap", .tap), ("start-stop", .startStop), ("start", .start), ("stop", .stop),
                                                   ("next-song", .nextSong), ("previous-song", .previousSong), ("faster", .faster),
                                                   ("slower", .slower), ("much-faster", .muchFaster), ("much-slower", .muchSlower),
                                                   ("double", .double), ("half", .half), ("mute", .mute), ("louder", .louder), ("softer", .softer)]
        for (name, action) in actions {
            #expect(request("/metronome/\(name)") == .control(.action(action)), "\(name)")
            #expect(request("/metronome/\(name)", [.int32(1)]) == .refused, "\(name)")
        }
        #expect(request("/metronome/tempo", [.double(97.25)]) == .control(.tempo(Tempo(clamping: 97_250))))
        #expect(request("/metronome/volume", [.float(0.4)]) == .volume(percent: 40))
        #expect(request("/metronome/meter", [.int32(5)]) == .meter(beats: 5, noteValue: nil))
        #expect(request("/metronome/meter", [.int32(40)]) == .unsupported(path: "/metronome/meter", reason: "a bar has 0 (no bell) to 32 beats"))
        #expect(request("/metronome/subscribe") == .subscribe(nil))
        #expect(request("/metronome/unsubscribe", [.string("9000")]) == .unsubscribe("9000"))
        #expect(request("/metronome/meter-of-nothing") == nil)
        #expect(request("/metronome/song", [.string("Waltz")]) == .song(.named("Waltz")))
        #expect(request("/metronome/song", [.int32(3)]) == .song(.numbered(3)))
        #expect(request("/metronome/song", [.float(2)]) == .song(.numbered(2)))
        #expect(request("/metronome/song", [.float(2.5)]) == .refused)
        #expect(request("/metronome/song") == .refused)
    }

    /// A beat in a bundle: "#bundle", the timetag, the message after its size; NTP time from Unix time.
    @Test func aBeatIsABundleTimetaggedInNTPTime() {
        let epoch: UInt64 = 2_208_988_800
        #expect(OSCTime.ntp(unixNanoseconds: 0) == epoch << 32)
        #expect(OSCTime.ntp(unixNanoseconds: 1_500_000_000) == ((epoch + 1) << 32) + (1 << 31))
        // A nanosecond is 4.29 units of 2⁻³² s, rounded.
        #expect(OSCTime.ntp(unixNanoseconds: 1) == (epoch << 32) + 4)
        let beat = OSCMessage("/metronome/beat", [.int32(3), .int32(1), .float(120), .int32(1)])
        let packet = beat.bundled(at: 0x0102_0304_0506_0708)
        #expect(Array(packet.prefix(16)) == padded("#bundle") + [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(decode(packet) == [beat])
    }

    /// The status: one message in a fixed order; a new bar or beat alone is no change to tell.
    @Test func theStatusIsOneMessageAndItsBarAndBeatAreNoChange() {
        let status = MetronomeStatus(tempo: 96.5, beatsPerBar: 7, noteValue: 8, bar: -1, beat: 2, playing: true, muted: false, volume: 0.25,
                                     underruns: 3, song: "2/5 Waltz", linkPeers: 1)
        #expect(status.message == OSCMessage("/metronome/status", [.float(96.5), .int32(7), .int32(8), .int32(-1), .int32(2), .int32(1), .int32(0),
                                                                   .float(0.25), .int32(3), .string("2/5 Waltz"), .int32(1)]))
        var later = status
        later.bar = 4
        later.beat = 1
        #expect(!later.differs(from: status))
        later.muted = true
        #expect(later.differs(from: status))
    }

    static let simple = KlickState(type: .simple, volume: 1, active: true, tempo: 120, currentTempo: 120, beatsPerBar: 4, noteValue: 4)

    /// A query's replies: klick's messages in its order and types; a part that
    /// is not the run's kind answers klick's own words as an error.
    @Test func aQueryIsKlicksMessagesForTheRunsKind() {
        let all = KlickNamespace.replies(to: nil, state: Self.simple)
        #expect(all.map(\.path) == ["/klick/config/sound", "/klick/config/sound_volume", "/klick/config/sound_pitch", "/klick/config/volume",
                                    "/klick/metro/type", "/klick/metro/active", "/klick/simple/tempo", "/klick/simple/tempo_increment",
                                    "/klick/simple/tempo_start", "/klick/simple/tempo_limit", "/klick/simple/current_tempo",
                                    "/klick/simple/meter", "/klick/simple/pattern"])
        #expect(all[11].arguments == [.int32(4), .int32(4)])
        var map = Self.simple
        map.type = .map
        map.mapFile = "song.txt"
        map.preroll = 2
        #expect(KlickNamespace.replies(to: .map, state: map) == [OSCMessage("/klick/map/filename", [.string("song.txt")]),
                                                                 OSCMessage("/klick/map/preroll", [.int32(2)]),
                                                                 OSCMessage("/klick/map/tempo_multiplier", [.float(1)])])
        #expect(KlickNamespace.replies(to: .simple, state: map)
            == [OSCMessage("/metronome/error", [.string("/klick/simple/query"), .string("function not available for current metronome type")])])
        #expect(KlickNamespace.replies(to: nil, state: map).suffix(3).map(\.path) == ["/klick/map/filename", "/klick/map/preroll", "/klick/map/tempo_multiplier"])
    }

    /// Registered clients are told each value that changed, in its query's message; nothing when nothing did.
    @Test func notificationsAreTheValuesThatChanged() {
        var changed = Self.simple
        #expect(KlickNamespace.notifications(from: Self.simple, to: changed).isEmpty)
        changed.tempo = 150
        changed.active = false
        changed.beatsPerBar = 3
        #expect(KlickNamespace.notifications(from: Self.simple, to: changed) == [OSCMessage("/klick/metro/active", [.int32(0)]),
                                                                                OSCMessage("/klick/simple/tempo", [.float(150)]),
                                                                                OSCMessage("/klick/simple/meter", [.int32(3), .int32(4)])])
        var louder = Self.simple
        louder.volume = 0.5
        louder.currentTempo = 121
        #expect(KlickNamespace.notifications(from: Self.simple, to: louder) == [OSCMessage("/klick/config/volume", [.float(0.5)]),
                                                                               OSCMessage("/klick/simple/current_tempo", [.float(121)])])
    }

    /// A wake acts on 32 changes at most (the audio thread's command queue holds 255), the rest
    /// counted and dropped; a registered client is told each change acted on, as it is taken.
    @Test func aWakeActsOnThirtyTwoChangesAtMostAndTellsEach() throws {
        let server = OSCServer(socket: try OSCSocket(host: "127.0.0.1", port: 0), filesAllowed: false)
        let client = try OSCSocket(host: "127.0.0.1", port: 0)
        let address = try #require(OSCPeer(host: "127.0.0.1", port: String(server.socket.port)))
        client.send(OSCMessage("/klick/register_client"), to: address)
        for _ in 0..<40 { client.send(OSCMessage("/metronome/mute"), to: address) }
        var state = Self.simple, acted = 0
        let status = MetronomeStatus(tempo: 120, beatsPerBar: 4, noteValue: 4, bar: 1, beat: 1, playing: true, muted: false, volume: 1, underruns: 0)
        server.notify(state, status)
        // Every packet is in the socket's buffer once the last one, read back by a second wake, is.
        #expect(waitUntil(seconds: 5, every: .milliseconds(1)) {
            server.takeWaiting(state: { state }, status: { status }) { request, _ in
                if case .control(.action(.mute)) = request {
                    acted += 1
                    state.active.toggle()
                }
            }
            return acted + server.actionsDropped >= 40
        })
        #expect(acted == 40 - server.actionsDropped && server.actionsDropped >= 8, "acted \(acted), dropped \(server.actionsDropped)")
        // Told as each was taken: an `active` for every change acted on.
        var told = 0
        while let (messages, _) = client.receive() { told += messages.filter { $0.path == "/klick/metro/active" }.count }
        #expect(told == acted)
    }

    /// Two sockets on loopback: a message sent from one is received by the
    /// other with its sender's port; a port in use is refused in one line.
    @Test func aSocketReceivesWhatAnotherSendsAndAPortInUseIsRefused() throws {
        let server = try OSCSocket(host: "127.0.0.1", port: 0), client = try OSCSocket(host: "127.0.0.1", port: 0)
        #expect(server.port > 0 && server.port != client.port)
        client.send(OSCMessage("/klick/ping"), to: try #require(OSCPeer(host: "127.0.0.1", port: String(server.port))))
        var received: (messages: [OSCMessage], sender: OSCPeer)?
        #expect(waitUntil(seconds: 5, every: .milliseconds(1)) {
            received = server.receive()
            return received != nil
        })
        #expect(received?.messages == [OSCMessage("/klick/ping")])
        #expect(received?.sender.description == "127.0.0.1:\(client.port)")
        #expect(throws: OSCError(.unavailable, "OSC port \(server.port) on 127.0.0.1 is in use")) { try OSCSocket(host: "127.0.0.1", port: server.port) }
        #expect(throws: OSCError(.badAddress, "--osc-host 'stage' is no numeric address (127.0.0.1, ::1, 0.0.0.0)")) { try OSCSocket(host: "stage", port: 0) }
    }
}

/// OSC over TCP's two framings, read from bytes as they come, in any pieces.
@Suite struct OSCStreamFramesTests {
    static let ping = OSCMessage("/klick/ping").encoded()
    static let tempo = OSCMessage("/klick/simple/set_tempo", [.float(150)]).encoded()

    /// Feeds `bytes` in pieces of `piece` and takes every packet as it becomes whole.
    static func packets(_ bytes: [UInt8], piece: Int) -> (packets: [[UInt8]], last: OSCStreamFrames.Next, framing: OSCStreamFrames.Framing?) {
        var frames = OSCStreamFrames(), packets: [[UInt8]] = [], last = OSCStreamFrames.Next.none
        for start in stride(from: 0, to: bytes.count, by: piece) {
            bytes[start..<min(start + piece, bytes.count)].withUnsafeBytes { frames.append($0) }
            while true {
                last = frames.next()
                guard case .packet(let packet) = last else { break }
                packets.append(packet)
            }
            if last == .broken { break }
        }
        return (packets, last, frames.framing)
    }

    @Test(arguments: [1, 3, 7, 1000])
    func sizedPacketsComeWholeHoweverTheBytesAreCut(piece: Int) {
        let bytes = OSCStreamFrames.frame(Self.ping, .sized) + OSCStreamFrames.frame(Self.tempo, .sized)
        #expect(bytes.prefix(4) == [0, 0, 0, UInt8(Self.ping.count)])
        let read = Self.packets(bytes, piece: piece)
        #expect(read.packets == [Self.ping, Self.tempo])
        #expect(read.framing == .sized && read.last == .none)
    }

    /// SLIP: END on each side, END and ESC inside escaped; a packet holding both comes back as it was.
    @Test(arguments: [1, 2, 5, 1000])
    func slipPacketsAreUnescapedHoweverTheBytesAreCut(piece: Int) {
        let awkward: [UInt8] = [0x2F, 0xC0, 0xDB, 0x00, 0xDB, 0xDC, 0xC0, 0x00]
        let framed = OSCStreamFrames.frame(awkward, .slip)
        #expect(framed == [0xC0, 0x2F, 0xDB, 0xDC, 0xDB, 0xDD, 0x00, 0xDB, 0xDD, 0xDC, 0xDB, 0xDC, 0x00, 0xC0])
        let read = Self.packets(framed + OSCStreamFrames.frame(Self.ping, .slip), piece: piece)
        #expect(read.packets == [awkward, Self.ping])
        #expect(read.framing == .slip && read.last == .none)
    }

    /// Sizes no OSC packet has, a bad escape, a SLIP frame longer than any packet: the stream is broken.
    @Test func framingThatIsNoneBreaksTheStream() {
        for size: [UInt8] in [[0, 0, 0, 0], [0, 0, 0, 6], [0, 1, 0, 4]] {
            #expect(Self.packets(size + [UInt8](repeating: 0, count: 8), piece: 100).last == .broken, "\(size)")
        }
        #expect(Self.packets([0xC0, 0x2F, 0xDB, 0x41, 0xC0], piece: 100).last == .broken)
        let endless = [0xC0] + [UInt8](repeating: 0x41, count: 2 * OSCStreamFrames.largestPacket + 1)
        #expect(Self.packets(endless, piece: 4096).last == .broken)
        // The largest packet taken, whole: not broken.
        let largest = [UInt8](repeating: 0x41, count: OSCStreamFrames.largestPacket)
        #expect(Self.packets(OSCStreamFrames.frame(largest, .sized), piece: 4096).packets == [largest])
    }
}
