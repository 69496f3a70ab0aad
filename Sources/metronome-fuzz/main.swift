import Glibc
import MetronomeCommandLine
import MetronomeTiming
import MetronomeSession

// Feeds arbitrary bytes to the parsers that read what a user writes: the
// tempo map (then the planner, for its first passages) and every option.
// Built normally it replays the files named on the command line (a corpus,
// a crash); `scripts/fuzz` builds it with `-sanitize=fuzzer -DFUZZING`, and
// then libFuzzer drives it. Any trap is a bug: bad input must only ever
// become one of the layers' own errors (`CommandFailure`).

func fuzzOne(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let rest = Array(bytes.dropFirst())
    // The two highest selectors: a MIDI file, a setlist.
    if selector == 0xFF {
        fuzzMIDIFile(rest)
    } else if selector == 0xFE {
        _ = try? Setlist(parsing: rest, name: "fuzz")
    } else if selector & 1 == 0 {
        fuzzTempoMap(rest)
    } else {
        fuzzOptions(rest)
    }
}

func fuzzTempoMap(_ bytes: [UInt8]) {
    guard let map = try? TempoMap(parsing: bytes, name: "fuzz") else { return }
    var rhythm = Rhythm()
    rhythm.subdivision = (try? Subdivision(parsingClicks: "3", swing: nil)) ?? .none
    rhythm.countInBars = 1
    for rate in [8_000, 192_000] {
        var plan = TempoPlan(.map(map, first: map.entries.count - 1, loops: true), rate: SampleRate(Int64(rate))!, rhythm: rhythm)
        for _ in 0..<64 {
            guard let passage = plan.next() else { break }
            _ = passage.frame(ofClick: passage.firstClick + 1)
            _ = passage.frame(ofSubdivisionTick: (passage.firstClick + 1) * 3 - 1)
        }
        _ = plan.fastestSchedule.shortestInterval
    }
}

/// A MIDI file's tempo map, then its plan's first passages.
func fuzzMIDIFile(_ bytes: [UInt8]) {
    guard let file = try? MIDIFile(parsing: bytes, name: "fuzz"), let map = try? TempoMap(midi: file, name: "fuzz") else { return }
    for rate in [8_000, 44_100, 192_000] {
        var plan = TempoPlan(.map(map, first: 0, loops: true), rate: SampleRate(Int64(rate))!, rhythm: Rhythm())
        for _ in 0..<64 {
            guard let passage = plan.next() else { break }
            _ = passage.frame(ofClick: passage.firstClick + 1)
        }
        _ = plan.fastestSchedule.shortestInterval
    }
}

/// Newline-separated values for the options, in a fixed order; an empty line is an option not given.
func fuzzOptions(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    var fields = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? nil : String($0) }
    while fields.count < 24 { fields.append(nil) }
    let names = ["--bpm", "--meter", "--rate", "--volume", "--bars", "--duration", "--output", "--format", "--latency",
                 "--angle", "--easing", "--click-at", "--visual-offset", "--fps", "--pattern", "--subdivide", "--swing",
                 "--subdivision-volume", "--polyrhythm", "--count-in", "--gap", "--random-mute", "--step", "--until"]
    // Parsed in-process as the command line would be, each value in its `--option=value` form.
    let arguments = zip(names, fields).compactMap { name, value in value.map { "\(name)=\($0)" } }
    guard case .session(let settings) = try? MetronomeCommand.parse(arguments).makeRun(), let source = settings.plan else { return }
    var plan = TempoPlan(source, rate: settings.rate, rhythm: settings.rhythm, beats: 4_096)
    for _ in 0..<64 { guard plan.next() != nil else { break } }
}

#if FUZZING
/// libFuzzer's entry point (its runtime refers to it by name).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzOne(size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}

/// This file's `main` is the program's, so it hands over to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzerTestOneInput))
#else
var replayed = 0
for path in CommandLine.arguments.dropFirst() {
    guard let file = fopen(path, "rb") else {
        StandardError.report("cannot read '\(path)'", program: "metronome-fuzz")
        exit(66)
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes += chunk[0..<count]
    }
    fclose(file)
    fuzzOne(bytes)
    replayed += 1
}
print("replayed \(replayed) input\(replayed == 1 ? "" : "s") without a crash")
#endif
