import Foundation
import Testing

/// A sound server stopped while the metronome plays in a terminal: within
/// 5 s, exit 74 with one line naming the device, the terminal restored and the picture gone.
/// `output`: the options that play through the server (default `--device DEVICE`);
/// `says`: how the line begins (default: the device failed).
package func expectALostServerEndsInOneLine(device: String, output: [String]? = nil, says: String? = nil,
                                            environment: [String: String], directory: String, stopServer: () -> Void) throws {
    let trace = directory + "/trace.jsonl", errors = directory + "/stderr"
    let variables = environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
    let pane = try TmuxPane(command: "env \(variables) \(metronomeBinary()) \((output ?? ["--device", device]).joined(separator: " ")) --bpm 137 --trace \(trace) 2>\(errors)")
    // Playing: the picture is up and clicks are being started.
    try pane.waitUntil("clicks through \(device)") {
        try (try? String(contentsOfFile: trace, encoding: .utf8))?.contains("\"click\"") == true && pane.capture().contains("q quit")
    }
    let stopped = Date()
    stopServer()
    let outcome = try pane.outcome(seconds: 10)
    let took = Date().timeIntervalSince(stopped)
    #expect(outcome.status == 74)
    #expect(took < 5, "took \(took) s to notice")
    let lines = try String(contentsOfFile: errors, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 1, "\(lines)")
    #expect(lines.first?.hasPrefix(says ?? "metronome: audio device '\(device)' failed: ") == true, "\(lines)")
    let flags = outcome.stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
    #expect(flags.contains("icanon") && flags.contains("echo"))
    #expect(!(try pane.capture()).contains("q quit"))
}
