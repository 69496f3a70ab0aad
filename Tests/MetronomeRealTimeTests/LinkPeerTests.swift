import Foundation
import Testing
@testable import MetronomeLink
import MetronomeTestSupport

/// Our LinkSession against real peers: LinkHut, Ableton's reference app, on a
/// JACK dummy server, and our own `link-peer` tool in another network
/// namespace. Serialized: Link sessions on one host find each other, so two
/// of these tests at once would join one session.
@Suite(.serialized) struct LinkPeerTests {
    static let required = RealTimeLoopbackTests.required

    /// Whether a session tempo is `bpm`: Link keeps a tempo as whole microseconds a beat
    /// (127 bpm is 472441 µs, 126.99997 bpm), so to LinkHut's two decimals.
    func isTempo(_ tempo: Double, _ bpm: Double) -> Bool { abs(tempo - bpm) < 0.005 }

    /// Polls every 10 ms, at most `seconds`, until `condition` holds.
    func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        waitUntil(seconds: seconds, every: .milliseconds(10), condition)
    }

    @Test(.enabled(if: LinkHutPeer.isInstalled || required))
    func ourSessionFindsLinkHutAsAPeer() throws {
        try #require(LinkHutPeer.isInstalled, "LinkHut and jackd are needed: run scripts/setup --test")
        let hut = try LinkHutPeer()
        hut.enableLink()
        let link = try LinkSession(bpm: 120)
        #expect(link.peers == 0)
        try link.enable()
        #expect(eventually { link.peers == 1 }, "our session never saw LinkHut")
        #expect(hut.hut.waitUntil("LinkHut sees one peer") { hut.status?.peers == 1 })
        // Leaving is seen too.
        try link.disable()
        #expect(hut.hut.waitUntil("LinkHut sees the peer leave") { hut.status?.peers == 0 })
    }

    @Test(.enabled(if: LinkHutPeer.isInstalled || required))
    func joiningAdoptsTheSessionsTempoAndFollowsItsChanges() throws {
        try #require(LinkHutPeer.isInstalled, "LinkHut and jackd are needed: run scripts/setup --test")
        let hut = try LinkHutPeer()
        hut.enableLink()
        hut.setTempo(127)
        hut.waitUntilTheSessionCanOnlyBeJoined()
        // We join at 90: a newcomer never changes the session's tempo.
        let link = try LinkSession(bpm: 90)
        try link.enable()
        #expect(eventually { link.peers == 1 })
        #expect(eventually { isTempo(link.captureAppState().tempo, 127) }, "tempo \(link.captureAppState().tempo)")
        #expect(hut.status?.tempo == 127)
        // LinkHut's `w` (−1) reaches us.
        hut.press("w")
        #expect(eventually { isTempo(link.captureAppState().tempo, 126) }, "tempo \(link.captureAppState().tempo)")
    }

    @Test(.enabled(if: LinkHutPeer.isInstalled || required))
    func aTempoCommittedHereMovesLinkHut() throws {
        try #require(LinkHutPeer.isInstalled, "LinkHut and jackd are needed: run scripts/setup --test")
        let hut = try LinkHutPeer()
        hut.enableLink()
        hut.waitUntilTheSessionCanOnlyBeJoined()
        let link = try LinkSession(bpm: 120)
        try link.enable()
        #expect(eventually { link.peers == 1 })
        var state = link.captureAppState()
        state.setTempo(133.5, at: link.now())
        try link.commitAppState(state)
        #expect(hut.hut.waitUntil("LinkHut follows our tempo") { hut.status?.tempo == 133.5 })
        // And a second session of ours, joining later, finds the same tempo and two peers.
        let second = try LinkSession(bpm: 60)
        try second.enable()
        #expect(eventually { second.peers == 2 && isTempo(second.captureAppState().tempo, 133.5) })
        // Both of ours are in one bar: the same phase at the same time, within a millisecond (0.0022 beats).
        func phaseGap() -> Double {
            let now = link.now()
            let gap = abs(link.captureAppState().phase(at: now, quantum: 4) - second.captureAppState().phase(at: now, quantum: 4))
            return min(gap, 4 - gap)
        }
        #expect(eventually { phaseGap() < 0.0022 }, "phase gap \(phaseGap()) beats")
    }

    @Test(.enabled(if: (LinkHutPeer.isInstalled && NetworkNamespaces.isAvailable) || required))
    func peersInTwoNetworkNamespacesFindEachOtherAndPlayOnWhenTheNetworkGoes() throws {
        try #require(LinkHutPeer.isInstalled && NetworkNamespaces.isAvailable, "LinkHut, jackd, ip and root are needed")
        let network = try NetworkNamespaces()
        // LinkHut at 123 in one namespace...
        let hut = try LinkHutPeer(namespace: network.names.1)
        hut.setTempo(123)
        hut.enableLink()
        hut.waitUntilTheSessionCanOnlyBeJoined()
        // ...and our peer (the library's LinkSession, in `link-peer`) at 100 in the other joins its session.
        let tool = URL(fileURLWithPath: metronomeBinary()).deletingLastPathComponent().appendingPathComponent("link-peer").path
        let ours = try PeerProcess("/bin/ip", ["netns", "exec", network.names.0, tool, "100"], name: "link-peer in \(network.names.0)")
        defer { ours.stop(sending: "quit\n") }
        ours.waitUntil("link-peer joins LinkHut's session") { ours.lines.last == "peers 1 tempo 123.00" }
        #expect(hut.hut.waitUntil("LinkHut sees link-peer") { hut.status?.peers == 1 })

        // The network goes down: alone, it plays on at the session's last tempo.
        try network.setFirstLink(up: false)
        ours.waitUntil("link-peer is alone") { ours.lines.last?.hasPrefix("peers 0") == true }
        #expect(ours.lines.last == "peers 0 tempo 123.00")
        // A tempo of its own while apart; LinkHut keeps its own.
        ours.send("tempo 140\n")
        ours.waitUntil("link-peer alone at 140") { ours.lines.last == "peers 0 tempo 140.00" }
        #expect(hut.status?.tempo == 123)
        // Back on the network, one session again, at one tempo.
        try network.setFirstLink(up: true)
        ours.waitUntil("link-peer finds LinkHut again", seconds: 20) { ours.lines.last?.hasPrefix("peers 1") == true }
        #expect(eventually(10) {
            guard let last = ours.lines.last, let tempo = hut.status?.tempo else { return false }
            return last == "peers 1 tempo \(String(format: "%.2f", tempo))"
        }, "link-peer: \(ours.lines.suffix(4)), LinkHut: \(String(describing: hut.status))")
    }
}
