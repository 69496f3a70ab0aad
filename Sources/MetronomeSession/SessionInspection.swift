import Glibc
import MetronomeAudio
import MetronomeTerminal
import MetronomeListening

/// `--inspect` and `--calibrate` in a live run: the input opened beside the
/// output, and what is printed, saved or written at the end.
extension Session {
    /// The input at the output's rate and period, its round trip (`--input-latency`, else the one
    /// `--calibrate` saved for the pair, else none), and the listener, which places what it hears
    /// by the output's audible `position`.
    static func openInspection(_ inspector: InspectorSettings, settings: Settings, output: OpenedOutput, position: AudiblePosition,
                               trace: Trace?) throws(SessionError) -> Inspection {
        if let missing = OnsetDetector.unavailable {
            throw SessionError(.cannotListen, "the practice inspector needs aubio (package libaubio5): \(missing.message)")
        }
        let device: CaptureDevice
        do {
            device = try CaptureDevice(name: inspector.inputDevice, rate: output.rate, periodFrames: output.periodFrames)
        } catch {
            throw SessionError(.deviceUnavailable, "cannot open input device '\(inspector.inputDevice)': \(error.message)")
        }
        var milliseconds = 0.0
        if inspector.mode == .inspect {
            if let given = inspector.inputLatencyMilliseconds {
                milliseconds = given
            } else if let saved = RoundTripStore()?.roundTrip(playback: output.name, input: inspector.inputDevice) {
                milliseconds = saved
            } else {
                StandardError.report("warning: no round trip measured for '\(output.name)' and '\(inspector.inputDevice)': offsets are not corrected (run --calibrate, or give --input-latency MS)")
            }
        }
        let roundTrip = Int64((milliseconds * Double(output.rate.framesPerSecond) / 1_000).rounded())
        // 16 384 chunks of 64 frames: 21 s at 48 kHz, should the listener be held up.
        let capture = LiveCapture(device: device, logCapacity: 16_384)
        // What was played, 8 s of it (should the listener be held up), for the bleed to be taken out; not when calibrating, which measures it.
        let played = inspector.mode == .inspect ? PlayedAudio(frames: Int(output.rate.framesPerSecond) * 8) : nil
        guard let listening = Inspector(log: capture.log, rate: output.rate, roundTripFrames: roundTrip, played: played) else {
            throw SessionError(.cannotListen, "aubio cannot detect onsets at \(output.rate.framesPerSecond) Hz")
        }
        let listener = LiveListener(inspector: listening) { position.snapshot() }
        let printsNotes = settings.verbosity == .verbose && !(settings.pendulum && isatty(STDOUT_FILENO) == 1)
        return Inspection(settings: inspector, capture: capture, listener: listener, trace: inspector.mode == .inspect ? trace : nil,
                          printsNotes: printsNotes && inspector.mode == .inspect, played: played)
    }

    /// The end of a take: the summary (and `--report`), or the calibration printed and saved.
    static func conclude(_ inspection: Inspection, report: InspectorReport?, settings: Settings, output: OpenedOutput) throws {
        if let failure = inspection.capture.failure {
            throw SessionError(.deviceFailed, "input device '\(inspection.settings.inputDevice)' failed: \(failure.message)")
        }
        switch inspection.settings.mode {
        case .inspect:
            let statistics = inspection.statistics
            if settings.verbosity != .quiet {
                TerminalScreen.emit(InspectorSummary.lines(statistics).joined(separator: "\n") + "\n")
            }
            try report?.write(statistics)
        case .calibrate:
            let device = inspection.settings.inputDevice
            let trips = inspection.inspector.roundTrips
            guard let calibration = Calibration(roundTrips: trips, rate: output.rate) else {
                throw SessionError(.calibrationFailed, "nothing came back on input device '\(device)' (\(trips.count) of the clicks heard): connect the output to the input, or hold a microphone by the speaker")
            }
            guard calibration.isEven else {
                let saved = RoundTripStore()?.roundTrip(playback: output.name, input: device)
                let kept = saved.map { "the one saved before (\(InspectorSummary.tenths($0)) ms) is kept" } ?? "nothing is saved"
                throw SessionError(.calibrationFailed, "the clicks came back unevenly on input device '\(device)': round trip \(calibration.figures), wider than ±\(Calibration.widestSpreadMilliseconds) ms: \(kept)")
            }
            if settings.verbosity != .quiet { TerminalScreen.emit("round-trip latency: \(calibration.figures)\n") }
            try RoundTripStore()?.save((calibration.milliseconds * 1_000).rounded() / 1_000, playback: output.name, input: device)
        }
    }
}
