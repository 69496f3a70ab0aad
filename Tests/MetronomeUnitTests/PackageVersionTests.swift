import Foundation
import Testing
import MetronomeTestSupport

/// One version: what `metronome --version` prints is the version the Debian
/// package is built as (debian/changelog's newest entry, without the Debian
/// revision), so a version bumped in one place and not the other fails here,
/// before scripts/package refuses it.
@Suite struct PackageVersionTests {
    @Test func versionIsTheNewestDebianChangelogEntrys() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let changelog = try String(contentsOf: root.appendingPathComponent("debian/changelog"), encoding: .utf8)
        // "metronome (0.1.0-1) unstable; urgency=medium"
        let first = try #require(changelog.split(separator: "\n").first)
        let open = try #require(first.firstIndex(of: "(")), close = try #require(first.firstIndex(of: ")"))
        let packageVersion = first[first.index(after: open)..<close]
        let hyphen = try #require(packageVersion.lastIndex(of: "-"), "'\(packageVersion)' has no Debian revision")
        let upstream = packageVersion[..<hyphen]
        #expect(first.hasPrefix("metronome ("))

        let result = try run(metronomeBinary(), ["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput == "\(upstream)\n")
    }
}
