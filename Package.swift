// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "metronome",
    products: [
        .executable(name: "metronome", targets: ["metronome"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CAlsa",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        .systemLibrary(
            name: "CSampleRate",
            pkgConfig: "samplerate",
            providers: [.apt(["libsamplerate0-dev"])]
        ),
        // aubio's header only: the library is loaded by the inspector (dlopen), not linked.
        .systemLibrary(
            name: "CAubio",
            providers: [.apt(["libaubio-dev"])]
        ),
        // JACK's headers only: libjack is loaded when a JACK client opens (dlopen), not linked.
        .systemLibrary(
            name: "CJack",
            providers: [.apt(["libjack-jackd2-dev"])]
        ),
        // liblo (Debian's liblo-dev): OSC's codec, linked.
        .systemLibrary(
            name: "CLiblo",
            pkgConfig: "liblo",
            providers: [.apt(["liblo-dev"])]
        ),
        // Ableton Link (Debian's ableton-link-dev, header-only, in /usr/include/ableton)
        // behind a C API: one C++ file, so Link and asio compile once.
        .target(
            name: "CLink",
            cxxSettings: [.define("LINK_PLATFORM_LINUX", to: "1")],
            linkerSettings: [.linkedLibrary("pthread"), .linkedLibrary("atomic")]
        ),
        // toml++ (Debian's libtomlplusplus-dev, header-only) behind a C API: the config file's parser.
        .target(name: "CToml"),
        // One target per layer, each importing only the ones below it (ARCHITECTURE.md,
        // checked by scripts/check-layers); a C library only where it is called.
        .target(name: "MetronomeSupport", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "MetronomeTiming", dependencies: ["MetronomeSupport"]),
        .target(name: "MetronomeLink", dependencies: ["MetronomeSupport", "MetronomeTiming", "CLink"]),
        .target(
            name: "MetronomeAudio",
            dependencies: ["MetronomeSupport", "MetronomeTiming", "MetronomeLink", "CAlsa", "CJack", "CSndFile", "CSampleRate",
                           .product(name: "SystemPackage", package: "swift-system")]
        ),
        .target(name: "MetronomeRender", dependencies: ["MetronomeSupport", "MetronomeTiming", "MetronomeAudio", "CSndFile", .product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "MetronomePendulum", dependencies: ["MetronomeSupport", "MetronomeTiming"]),
        .target(name: "MetronomeTerminal", dependencies: ["MetronomeSupport"]),
        .target(name: "MetronomeConfig", dependencies: ["MetronomeSupport", "MetronomeTiming", "CToml",
                                                   .product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "MetronomeStats", dependencies: ["MetronomeSupport", .product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "MetronomeOSC", dependencies: ["MetronomeSupport", "MetronomeTiming", "CLiblo", .product(name: "SystemPackage", package: "swift-system")]),
        .target(
            name: "MetronomeListening",
            dependencies: ["MetronomeSupport", "MetronomeTiming", "MetronomeAudio", "MetronomeRender", "MetronomePendulum",
                           "CAlsa", "CAubio", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .target(
            name: "MetronomeSession",
            dependencies: ["MetronomeSupport", "MetronomeTiming", "MetronomeLink", "MetronomeAudio", "MetronomeRender",
                           "MetronomePendulum", "MetronomeTerminal", "MetronomeOSC", "MetronomeListening",
                           .product(name: "SystemPackage", package: "swift-system")]
        ),
        .target(
            name: "MetronomeCommandLine",
            dependencies: [
                "MetronomeSupport", "MetronomeTiming", "MetronomeAudio", "MetronomeRender", "MetronomePendulum",
                "MetronomeTerminal", "MetronomeOSC", "MetronomeConfig", "MetronomeStats", "MetronomeSession",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "metronome",
            dependencies: ["MetronomeCommandLine"]
        ),
        .executableTarget(
            name: "metronome-fuzz",
            dependencies: ["MetronomeTiming", "MetronomeSession", "MetronomeCommandLine"]
        ),
        .executableTarget(
            name: "make-sounds",
            dependencies: ["MetronomeAudio", "MetronomeRender", "MetronomeSession"]
        ),
        // A Link peer for the tests to run in other network namespaces.
        .executableTarget(
            name: "link-peer",
            dependencies: ["MetronomeLink"],
            path: "Tests/Tools/link-peer"
        ),
        .target(
            name: "CAllocationCounter",
            path: "Tests/CAllocationCounter"
        ),
        // The tests by kind (ARCHITECTURE.md): units that run in parallel, the
        // real-time and server tests that run one at a time, and what both share.
        .target(
            name: "MetronomeTestSupport",
            dependencies: ["MetronomeSupport", "MetronomeTiming", "MetronomeAudio", "MetronomeRender",
                           "MetronomeSession", "MetronomeCommandLine", "CSndFile",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tests/MetronomeTestSupport"
        ),
        .testTarget(
            name: "MetronomeUnitTests",
            dependencies: ["MetronomeTestSupport", "MetronomeSupport", "MetronomeTiming", "MetronomeLink", "MetronomeAudio",
                           "MetronomeRender", "MetronomePendulum", "MetronomeTerminal", "MetronomeOSC", "MetronomeListening",
                           "MetronomeConfig", "MetronomeStats", "MetronomeSession", "MetronomeCommandLine", "CAllocationCounter", "CSndFile",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            exclude: ["Snapshots", "PCMDumps"]
        ),
        .testTarget(
            name: "MetronomeRealTimeTests",
            dependencies: ["MetronomeTestSupport", "MetronomeSupport", "MetronomeTiming", "MetronomeLink", "MetronomeAudio",
                           "MetronomeRender", "MetronomePendulum", "MetronomeTerminal", "MetronomeOSC", "MetronomeListening",
                           "MetronomeSession", "MetronomeCommandLine", "CAllocationCounter", "CSndFile",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
