import Foundation
import Testing
@testable import MetronomeAudio
import MetronomeTestSupport

/// Which server stands behind a device, read from real `snd_pcm_dump`s in
/// `PCMDumps/`: each chain opened for playback (mono, float where it takes
/// it, else S16, about 85 ms in 1024-frame periods) with a JACK server on the
/// dummy driver or a private PipeWire session running (`Tests/Tools/pcm_dump.c`),
/// once set up, and `-unset` before any setup (as the device's default latency is
/// chosen). `softvol` is missing: it needs a sound card's controls, and the
/// machines these were taken on have no card.
@Suite struct SoundServerTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("PCMDumps")

    struct Chain: Sendable, CustomTestStringConvertible {
        let file: String
        /// Whether `snd_pcm_type` of the device is `SND_PCM_TYPE_IOPLUG`.
        let outermostIsIOPlugin: Bool
        let server: SoundServer?
        /// The server's plugin's period and rate, as set up.
        let period: Int?
        let rate: Int64?

        var testDescription: String { file }
    }

    static let chains: [Chain] = [
        // JACK: ALSA's recipe (plug over jack), and rate and route, which take
        // only linear samples, over a plug over it.
        Chain(file: "jack", outermostIsIOPlugin: true, server: .jack, period: 1024, rate: 48_000),
        Chain(file: "jack-unset", outermostIsIOPlugin: true, server: .jack, period: nil, rate: nil),
        Chain(file: "plug-jack", outermostIsIOPlugin: false, server: .jack, period: 1024, rate: 48_000),
        Chain(file: "plug-plug-jack", outermostIsIOPlugin: false, server: .jack, period: 1024, rate: 48_000),
        Chain(file: "rate-plug-jack", outermostIsIOPlugin: false, server: .jack, period: 1024, rate: 48_000),
        Chain(file: "rate-plug-jack-unset", outermostIsIOPlugin: false, server: .jack, period: nil, rate: nil),
        // 44.1 kHz converted to JACK's 48: the device's periods are 1881 frames at 44100 Hz, JACK's plugin's 2048 at 48000.
        Chain(file: "rate-plug-jack-44100", outermostIsIOPlugin: false, server: .jack, period: 2048, rate: 48_000),
        Chain(file: "route-plug-jack", outermostIsIOPlugin: false, server: .jack, period: 1024, rate: 48_000),
        Chain(file: "route-plug-jack-unset", outermostIsIOPlugin: false, server: .jack, period: nil, rate: nil),
        // PipeWire (pipewire-alsa), `default` included.
        Chain(file: "pipewire", outermostIsIOPlugin: true, server: .pipewire, period: 1024, rate: 48_000),
        Chain(file: "plug-pipewire", outermostIsIOPlugin: false, server: .pipewire, period: 1024, rate: 48_000),
        Chain(file: "plug-pipewire-unset", outermostIsIOPlugin: false, server: .pipewire, period: nil, rate: nil),
        Chain(file: "plug-default", outermostIsIOPlugin: false, server: .pipewire, period: 1024, rate: 48_000),
        // 44.1 kHz converted to 48: the device's periods are 940 frames at 44100 Hz.
        Chain(file: "rate-pipewire-44100", outermostIsIOPlugin: false, server: .pipewire, period: 1024, rate: 48_000),
        Chain(file: "rate-pipewire-unset", outermostIsIOPlugin: false, server: .pipewire, period: nil, rate: nil),
        Chain(file: "route-pipewire", outermostIsIOPlugin: false, server: .pipewire, period: 1024, rate: 48_000),
        // PulseAudio's plugin (into pipewire-pulse).
        Chain(file: "pulse", outermostIsIOPlugin: true, server: .pulse, period: 1024, rate: 48_000),
        Chain(file: "plug-pulse", outermostIsIOPlugin: false, server: .pulse, period: 1024, rate: 48_000),
        Chain(file: "rate-plug-pulse-44100", outermostIsIOPlugin: false, server: .pulse, period: 1024, rate: 48_000),
        Chain(file: "route-plug-pulse", outermostIsIOPlugin: false, server: .pulse, period: 1024, rate: 48_000),
        Chain(file: "route-plug-pulse-unset", outermostIsIOPlugin: false, server: .pulse, period: nil, rate: nil),
        // Card-like chains: no server, though their setups hold periods and rates.
        Chain(file: "plug-null", outermostIsIOPlugin: false, server: nil, period: nil, rate: nil),
        Chain(file: "rate-null", outermostIsIOPlugin: false, server: nil, period: nil, rate: nil),
    ]

    @Test(arguments: chains)
    func theServerIsFoundAnywhereInTheChainWithItsOwnPeriod(chain: Chain) throws {
        let dump = try String(contentsOf: Self.folder.appendingPathComponent("\(chain.file).txt"), encoding: .utf8)
        let plugin = ServerPlugin(dump: dump, outermostIsIOPlugin: chain.outermostIsIOPlugin)
        #expect(plugin?.server == chain.server)
        #expect(plugin?.periodFrames == chain.period)
        #expect(plugin?.rate == chain.rate)
    }

    /// The stall watch's quantum is the server's period counted in the device's
    /// frames: behind a rate plugin at 44.1 kHz, 1024 frames at 48 are 941, not
    /// the device's own 940-frame period.
    @Test func theServersPeriodIsCountedInTheDevicesFrames() throws {
        let dump = try String(contentsOf: Self.folder.appendingPathComponent("rate-pipewire-44100.txt"), encoding: .utf8)
        let plugin = try #require(ServerPlugin(dump: dump, outermostIsIOPlugin: false))
        #expect(plugin.periodFrames(at: 44_100) == 941)
        #expect(plugin.periodFrames(at: 48_000) == 1024)
        let unset = try String(contentsOf: Self.folder.appendingPathComponent("rate-pipewire-unset.txt"), encoding: .utf8)
        #expect(ServerPlugin(dump: unset, outermostIsIOPlugin: false)?.periodFrames(at: 44_100) == nil)
    }

    /// Every dump of a chain is here, and each is a test's.
    @Test func everyDumpIsTested() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".txt") }
        #expect(Set(files) == Set(Self.chains.map { "\($0.file).txt" }))
    }

    /// An outermost I/O plugin of no server's name is one of another kind, with the device's own setup.
    @Test func anOutermostIOPluginOfAnotherNameIsAnother() {
        let dump = "ALSA <-> OSS PCM I/O Plugin\nIts setup is:\n  rate         : 44100\n  period_size  : 512\n"
        #expect(ServerPlugin(dump: dump, outermostIsIOPlugin: true) == ServerPlugin(server: .other, periodFrames: 512, rate: 44_100))
        #expect(ServerPlugin(dump: dump, outermostIsIOPlugin: false)?.server == .other)
        #expect(ServerPlugin(dump: "Null PCM\n", outermostIsIOPlugin: true)?.server == .other)
    }
}
