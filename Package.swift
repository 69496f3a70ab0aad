// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "metronome",
    products: [
        .executable(name: "metronome", targets: ["metronome"]),
        .library(name: "Metronome", targets: ["Metronome"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
        // Ableton Link (Debian's ableton-link-dev, header-only, in /usr/include/ableton)
        // behind a C API: one C++ file, so Link and asio compile once.
        .target(
            name: "CLink",
            cxxSettings: [.define("LINK_PLATFORM_LINUX", to: "1")],
            linkerSettings: [.linkedLibrary("pthread"), .linkedLibrary("atomic")]
        ),
        .target(
            name: "Metronome",
            dependencies: ["CAlsa", "CSndFile", "CSampleRate", "CLink", "CAubio"]
        ),
        .target(
            name: "MetronomeCommandLine",
            dependencies: [
                "Metronome",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "metronome",
            dependencies: ["MetronomeCommandLine"]
        ),
        .executableTarget(
            name: "metronome-fuzz",
            dependencies: ["Metronome", "MetronomeCommandLine"]
        ),
        .executableTarget(
            name: "make-sounds",
            dependencies: ["Metronome"]
        ),
        // A Link peer for the tests to run in other network namespaces.
        .executableTarget(
            name: "link-peer",
            dependencies: ["Metronome"],
            path: "Tests/Tools/link-peer"
        ),
        .target(
            name: "CAllocationCounter",
            path: "Tests/CAllocationCounter"
        ),
        .testTarget(
            name: "MetronomeTests",
            dependencies: ["Metronome", "MetronomeCommandLine", "CAllocationCounter", "CSndFile",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            exclude: ["Snapshots"]
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
