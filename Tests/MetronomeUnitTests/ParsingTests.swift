import MetronomeCommandLine
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeRender
@testable import MetronomeSession
@testable import MetronomeCommandLine
import MetronomeTestSupport

@Suite struct ParsingTests {

    @Test func tempoIsHeldInThousandths() throws {
        #expect(try Tempo(parsing: "90").millibeatsPerMinute == 90_000)
        #expect(try Tempo(parsing: "92.5").millibeatsPerMinute == 92_500)
        #expect(try Tempo(parsing: "137.125").millibeatsPerMinute == 137_125)
        #expect(try Tempo(parsing: "120.500").millibeatsPerMinute == 120_500)
        #expect(try Tempo(parsing: "1").description == "1")
        #expect(try Tempo(parsing: "92.50").description == "92.5")
        #expect(try Tempo(parsing: "1000").millibeatsPerMinute == 1_000_000)
    }

    @Test(arguments: ["0", "-5", "nan", "inf", "1001", "", "1e2", "92.1234", "0.999", "abc", "9.9.9", "+90"])
    func badTempiAreUsageErrorsNamingTheValue(text: String) {
        #expect {
            _ = try Tempo(parsing: text)
        } throws: { error in
            guard let error = error as? TimingError else { return false }
            return CommandFailure.from(error)?.status == SysExit.usage.rawValue && error.message.contains("'\(text)'") && !error.message.contains("\n")
        }
    }

    @Test func metersParseAndCheckTheirParts() throws {
        let meter = try Meter(parsing: "7/8")
        #expect(meter.beatsPerBar == 7 && meter.noteValue == 8)
        #expect(try Meter(parsing: "32/32").beatsPerBar == 32)
        for bad in ["0/4", "4/0", "4/3", "33/4", "4", "4/4/4", "/4", "a/b", ""] {
            #expect(throws: TimingError.self) { try Meter(parsing: bad) }
        }
    }

    @Test func ratesOutsideTheRangeAreRefused() throws {
        #expect(try SampleRate(parsing: "8000").framesPerSecond == 8_000)
        #expect(try SampleRate(parsing: "192000").framesPerSecond == 192_000)
        for bad in ["7999", "192001", "44.1", "-48000", ""] {
            #expect(throws: TimingError.self) { try SampleRate(parsing: bad) }
        }
    }

    @Test func durationsReadEveryDocumentedForm() throws {
        let cases: [(String, Int64)] = [
            ("90", 90_000_000_000), ("90s", 90_000_000_000), ("10m", 600_000_000_000), ("1h", 3_600_000_000_000),
            ("1h30m", 5_400_000_000_000), ("2.5m", 150_000_000_000), ("1m30.5s", 90_500_000_000), ("0.001", 1_000_000),
            ("1h0m1s", 3_601_000_000_000),
        ]
        for (text, nanoseconds) in cases {
            #expect(try Playtime(parsing: text).nanoseconds == nanoseconds, "\(text)")
        }
        for bad in ["0", "0s", "-3", "1x", "", "m", "1m1h", "1s1m", "1h1h", "1.2.3s", "10 m", "1e3"] {
            #expect(throws: TimingError.self, "\(bad)") { try Playtime(parsing: bad) }
        }
    }

    @Test func durationFramesRoundHalfUp() throws {
        let rate = try #require(SampleRate(44_100))
        #expect(try Playtime(parsing: "1h").frames(at: rate) == 158_760_000)
        // 0.00001 s at 44.1 kHz is 0.441 frames; 0.5/44100 s rounds up to one frame.
        #expect(try Playtime(parsing: "0.00001").frames(at: rate) == 0)
        #expect(Playtime(nanoseconds: 11_338)!.frames(at: rate) == 1)  // 0.50000... frames
    }

    @Test func settingsRefuseContradictionsAndMissingLengths() throws {
        for arguments in [["--bars", "4", "--duration", "10"], ["--output", "x.wav"], ["--bars", "1", "--output", "x.mp3"],
                          ["--bars", "1", "--output", "x.flac", "--format", "float"], ["--bars", "0"], ["--volume", "1.01"],
                          ["--volume", "-0"], ["--latency", "0"], ["--format", "float"], ["--easing", "bouncy"]] {
            #expect(throws: CommandFailure.self, "\(arguments)") { try parsedSettings(arguments) }
            do { _ = try parsedSettings(arguments) } catch { #expect(error.status == 64, "\(arguments): \(error)") }
        }
        let settings = try parsedSettings("--bpm", "137", "--meter", "3/4", "--rate", "44100", "--volume", "0.25", "--bars", "8",
                                          "--output", "a/b.FLAC")
        #expect(settings.tempo.millibeatsPerMinute == 137_000)
        #expect(settings.volume == 0.25)
        #expect(settings.length == .bars(8))
        guard case .file(_, let format) = settings.destination else {
            Issue.record("not rendered to a file: \(settings.destination)")
            return
        }
        #expect(format.container == .flac)
    }

    @Test func outputFormatComesFromTheExtension() throws {
        #expect(try OutputFormat(path: "click.wav", sampleFormat: .pcm16).container == .wav)
        #expect(try OutputFormat(path: "dir.v2/click.AIF", sampleFormat: .float).container == .aiff)
        #expect(try OutputFormat(path: "click.ogg", sampleFormat: .pcm16).container == .ogg)
        #expect(throws: RenderError.self) { try OutputFormat(path: "click", sampleFormat: .pcm16) }
        #expect(throws: RenderError.self) { try OutputFormat(path: ".wav", sampleFormat: .pcm16) }
        #expect(throws: RenderError.self) { try OutputFormat(path: "dir.wav/click", sampleFormat: .pcm16) }
    }

    @Test func wavBeyondFourGigabytesIsWrittenAsRF64() throws {
        let wav = try OutputFormat(path: "click.wav", sampleFormat: .pcm16)
        let small = wav.libsndfileFormat(frames: 158_760_000)
        let huge = wav.libsndfileFormat(frames: 2_200_000_000)  // 4.4 GB of 16-bit samples
        #expect(small & 0x0FFF_0000 == 0x010000)  // SF_FORMAT_WAV
        #expect(huge & 0x0FFF_0000 == 0x220000)   // SF_FORMAT_RF64
    }

    @Test func latencySetsTheBufferAndKeepsPeriodsSmall() throws {
        let rate = SampleRate.standard
        #expect(Latency.standardFrames() == (256, 512))
        let twenty = try Latency(parsing: "20").frames(at: rate)
        #expect(twenty.buffer == 960 && twenty.period == 256)
        let tiny = try Latency(parsing: "2").frames(at: rate)
        #expect(tiny.buffer == 96 && tiny.period == 48)
    }
}
