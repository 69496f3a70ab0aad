// A Link peer for the tests, built on the library's LinkSession: it joins the
// session on whatever network it runs in (tests start it inside a network
// namespace with `ip netns exec`), prints `peers N tempo T` whenever either
// changes, and reads commands on stdin: `tempo BPM` commits a tempo to the
// session, `quit` (or end of input) leaves.
//   link-peer BPM
import Glibc
import MetronomeLink

func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

guard CommandLine.arguments.count == 2, let bpm = Double(CommandLine.arguments[1]) else {
    say("usage: link-peer BPM")
    exit(64)
}

let link: LinkSession
do {
    link = try LinkSession(bpm: bpm)
    try link.enable()
} catch {
    say("link-peer: \(error)")
    exit(69)
}

var pending: [UInt8] = []
var shown: (peers: Int, tempo: String)?
while true {
    let state = link.captureAppState()
    let now = (peers: link.peers, tempo: String(format2: state.tempo))
    if shown == nil || shown!.peers != now.peers || shown!.tempo != now.tempo {
        say("peers \(now.peers) tempo \(now.tempo)")
        shown = now
    }
    var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
    guard poll(&input, 1, 20) >= 0 || errno == EINTR else { exit(74) }
    guard input.revents != 0 else { continue }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = read(STDIN_FILENO, &buffer, buffer.count)
    if count <= 0 { break }
    pending += buffer[0..<count]
    while let newline = pending.firstIndex(of: 10) {
        let words = String(decoding: pending[..<newline], as: UTF8.self).split(separator: " ")
        pending.removeSubrange(...newline)
        if words.first == "quit" { exit(0) }
        if words.count == 2, words[0] == "tempo", let tempo = Double(words[1]) {
            var state = link.captureAppState()
            state.setTempo(tempo, at: link.now())
            do { try link.commitAppState(state) } catch { say("link-peer: \(error)") }
        }
    }
}

extension String {
    /// `value` with two decimals, as LinkHut shows a tempo.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = abs(hundredths % 100)
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
