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
        .systemLibrary(
            name: "CAubio",
            pkgConfig: "aubio",
            providers: [.apt(["libaubio-dev"])]
        ),
        .target(
            name: "Metronome",
            dependencies: ["CAlsa", "CSndFile", "CSampleRate", "CAubio"]
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
    swiftLanguageModes: [.v6]
)
