// Benchmarks/least-picture.c written in Swift, line for line: the floor's loop
// drawing a pendulum of its own, rewriting only the cells that moved. Beside the
// C one, it shows what the language costs a frame that touches little memory.
// scripts/benchmark-picture builds it with `swiftc -O`.
// Usage: least-picture-swift FPS SECONDS BPM
import Glibc

func nowNs() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}

/// Each row's drawn column (-1: none) and character, and the bytes of a frame.
struct Picture {
    var drawnX: [Int]
    var drawnC: [UInt8]
    var out: [UInt8] = []
    init(height: Int) {
        drawnX = [Int](repeating: -1, count: height)
        drawnC = [UInt8](repeating: 32, count: height)
        out.reserveCapacity(height * 64)
    }
    /// Appends the cursor move to row `y`, column `x` (both from 0) and the character `c`.
    mutating func put(_ y: Int, _ x: Int, _ c: UInt8) {
        out.append(27); out.append(UInt8(ascii: "["))
        appendDecimal(y + 1); out.append(UInt8(ascii: ";")); appendDecimal(x + 1)
        out.append(UInt8(ascii: "H")); out.append(c)
    }
    mutating func appendDecimal(_ value: Int) {
        if value >= 10 { appendDecimal(value / 10) }
        out.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let fps = Int64(arguments[1]), let seconds = Int64(arguments[2]), let bpm = Int64(arguments[3]),
      fps > 0, bpm > 0 else {
    fputs("usage: least-picture-swift FPS SECONDS BPM\n", stderr)
    exit(64)
}
let period = 1_000_000_000 / fps
let start = nowNs(), end = start + seconds * 1_000_000_000
let beat = 60_000_000_000 / bpm
var size = winsize()
_ = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size)
let w = size.ws_col > 0 ? Int(size.ws_col) : 80, h = max(size.ws_row > 0 ? Int(size.ws_row) : 24, 6)
var picture = Picture(height: h)
_ = "\u{1B}[2J".utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, 4) }
var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
var shownBeat: Int64 = -1
let px = w / 2, py = 1, length = h - 4
var next = nowNs()
while next < end {
    let t = nowNs() - start
    let count = t / beat
    let phase = Double(t % beat) / Double(beat)  // 0 at a click, 1 at the next
    let rising = -2 * phase + 2
    let eased = phase < 0.5 ? 4 * phase * phase * phase : 1 - rising * rising * rising / 2
    let angle = (count % 2 == 1 ? 1.0 : -1.0) * (1 - 2 * eased) * 0.6
    // A cell a row from the pivot down to the bob, then nothing below it.
    let slope = tan(angle) * 2
    let bob = py + Int((Double(length) * cos(angle)).rounded())
    let rod: UInt8 = angle > 0.15 ? UInt8(ascii: "\\") : angle < -0.15 ? UInt8(ascii: "/") : UInt8(ascii: "|")
    picture.out.removeAll(keepingCapacity: true)
    for y in py..<(h - 1) {
        var x = y <= bob ? px + Int((slope * Double(y - py)).rounded()) : -1
        let c = y == bob ? UInt8(ascii: "O") : rod
        if x < 0 || x >= w { x = -1 }
        if picture.drawnX[y] == x && (x < 0 || picture.drawnC[y] == c) { continue }
        if picture.drawnX[y] >= 0 && picture.drawnX[y] != x { picture.put(y, picture.drawnX[y], 32) }
        if x >= 0 { picture.put(y, x, c) }
        picture.drawnX[y] = x
        picture.drawnC[y] = c
    }
    if count != shownBeat {
        shownBeat = count
        picture.out.append(contentsOf: "\u{1B}[\(h);1Hbeat \(count % 4 + 1) of 4   \(bpm) bpm".utf8)
    }
    if !picture.out.isEmpty {
        let written = picture.out.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        if written < 0 { exit(1) }
    }
    next += period
    let wait = next - nowNs()
    if wait > 0 { poll(&input, 1, Int32(wait / 1_000_000)) }
}
