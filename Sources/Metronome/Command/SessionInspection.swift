import Glibc

/// `--inspect` and `--calibrate` in a live run: the input opened beside the
/// output, and what is printed, saved or written at the end.
extension Session {
    /// The input at the output's rate and period, its round trip (`--input-latency`, else the one
    /// `--calibrate` saved for the pair, else none), and the listener.
    static func openInspection(_ inspector: InspectorSettings, settings: Settings, sink: any AudioSink,
                               trace: Trace?) throws(MetronomeError) -> Inspection {
        if let missing = OnsetDetector.unavailable {
            throw MetronomeError(.unavailable, "the practice inspector needs aubio (package libaubio5): \(missing.message)")
        }
        let device: CaptureDevice
        do {
            device = try CaptureDevice(name: inspector.inputDevice, rate: sink.rate, periodFrames: sink.periodFrames)
        } catch {
            throw MetronomeError(.unavailable, "cannot open input device '\(inspector.inputDevice)': \(error.message)")
        }
        var milliseconds = 0.0
        if inspector.mode == .inspect {
            if let given = inspector.inputLatencyMilliseconds {
                milliseconds = given
            } else if let saved = RoundTripStore()?.roundTrip(playback: sink.name, input: inspector.inputDevice) {
                milliseconds = saved
            } else {
                StandardError.report("warning: no round trip measured for '\(sink.name)' and '\(inspector.inputDevice)': offsets are not corrected (run --calibrate, or give --input-latency MS)")
            }
        }
        let roundTrip = Int64((milliseconds * Double(sink.rate.framesPerSecond) / 1_000).rounded())
        // 16 384 chunks of 64 frames: 21 s at 48 kHz, should the loop be held up.
        let capture = LiveCapture(device: device, logCapacity: 16_384)
        // What was played, 8 s of it (should the loop be held up), for the bleed to be taken out; not when calibrating, which measures it.
        let played = inspector.mode == .inspect ? PlayedAudio(frames: Int(sink.rate.framesPerSecond) * 8) : nil
        guard let listener = Inspector(log: capture.log, rate: sink.rate, roundTripFrames: roundTrip, played: played) else {
            throw MetronomeError(.unavailable, "aubio cannot detect onsets at \(sink.rate.framesPerSecond) Hz")
        }
        let printsNotes = settings.verbosity == .verbose && !(settings.pendulum && isatty(STDOUT_FILENO) == 1)
        return Inspection(settings: inspector, capture: capture, inspector: listener, trace: inspector.mode == .inspect ? trace : nil,
                          printsNotes: printsNotes && inspector.mode == .inspect, played: played)
    }

    /// The end of a take: the summary (and `--report`), or the calibration printed and saved.
    static func conclude(_ inspection: Inspection, settings: Settings, sink: any AudioSink) throws(MetronomeError) {
        if let failure = inspection.capture.failure {
            throw MetronomeError(.ioError, "input device '\(inspection.settings.inputDevice)' failed: \(failure.message)")
        }
        switch inspection.settings.mode {
        case .inspect:
            let statistics = inspection.statistics
            if settings.verbosity != .quiet {
                TerminalScreen.emit(InspectorSummary.lines(statistics).joined(separator: "\n") + "\n")
            }
            if let report = inspection.settings.report { try InspectorReport.write(statistics, to: report) }
        case .calibrate:
            let rate = Double(sink.rate.framesPerSecond)
            let trips = inspection.inspector.roundTrips.sorted()
            guard trips.count >= 3 else {
                throw MetronomeError(.unavailable, "nothing came back on input device '\(inspection.settings.inputDevice)' (\(trips.count) of the clicks heard): connect the output to the input, or hold a microphone by the speaker")
            }
            let median = trips.count % 2 == 1 ? Double(trips[trips.count / 2]) : Double(trips[trips.count / 2 - 1] + trips[trips.count / 2]) / 2
            let spread = trips.map { abs(Double($0) - median) }.max() ?? 0
            let milliseconds = median * 1_000 / rate
            let line = "round-trip latency: \(InspectorSummary.tenths(milliseconds)) ms (±\(InspectorSummary.tenths(spread * 1_000 / rate)) ms over \(trips.count) clicks)"
            if settings.verbosity != .quiet { TerminalScreen.emit(line + "\n") }
            try RoundTripStore()?.save((milliseconds * 1_000).rounded() / 1_000, playback: sink.name, input: inspection.settings.inputDevice)
        }
    }
}
