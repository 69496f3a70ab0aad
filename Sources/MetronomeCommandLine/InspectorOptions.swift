import ArgumentParser
import MetronomeSession

/// Listening back: the practice inspector and its calibration.
struct InspectorOptions: ParsableArguments {
    /// `--inspect` or `--calibrate`, each as often as given: one of them a run.
    @Flag var listening: [InspectorSettings.Mode] = []

    @Option(name: .long, help: ArgumentHelp("ALSA capture device the player is heard on. Default: default.", valueName: "name"))
    var inputDevice: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The round trip in ms, instead of the one --calibrate saved (e.g. --input-latency 23.4).", valueName: "ms"))
    var inputLatency: OptionValue<InputLatency>?

    @Option(name: .long, help: ArgumentHelp("With --inspect, write the summary to this JSON file.", valueName: "file"))
    var report: String?

    /// What these options ask for, checked against the run's other options.
    func settings(output: String?, link: Bool) throws -> InspectorSettings? {
        if Set(listening).count > 1 { throw SessionError.badRequest("--inspect and --calibrate are two runs: give one of them") }
        guard let mode = listening.first else {
            for (option, given) in [("--input-device", inputDevice != nil), ("--input-latency", inputLatency != nil), ("--report", report != nil)] where given {
                throw SessionError.badRequest("\(option) applies to --inspect or --calibrate only")
            }
            return nil
        }
        if let output {
            throw SessionError.badRequest("--output '\(output)' renders a file: \(mode == .inspect ? "--inspect" : "--calibrate") listens to live playback")
        }
        if link, mode == .calibrate { throw SessionError.badRequest("--calibrate plays its own clicks: play without --link") }
        if let inputDevice, inputDevice.isEmpty { throw SessionError.badRequest("input device name is empty: use e.g. default or hw:0") }
        let device = inputDevice ?? "default"
        if mode == .calibrate {
            if inputLatency != nil { throw SessionError.badRequest("--input-latency sets what --calibrate measures: give one of them") }
            if report != nil { throw SessionError.badRequest("--report applies to --inspect only") }
            return .calibrate(inputDevice: device)
        }
        let roundTrip = try inputLatency?.value().milliseconds
        if report?.isEmpty == true { throw SessionError.badRequest("--report needs a file name") }
        return .inspect(inputDevice: device, inputLatencyMilliseconds: roundTrip, report: report)
    }
}

/// `--inspect` and `--calibrate`: the two ways of listening back.
extension InspectorSettings.Mode: EnumerableFlag {
    package static func help(for value: Self) -> ArgumentHelp? {
        switch value {
        case .inspect:
            "Listen to the player on --input-device while playing: every note's offset from its click (negative early), live and in a summary at the end."
        case .calibrate:
            "Measure the round trip from a click leaving the output to it coming back on --input-device (4 bars unless --bars says), print it and save it for this pair of devices."
        }
    }
}
