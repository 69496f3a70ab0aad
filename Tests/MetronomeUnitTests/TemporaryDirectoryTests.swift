import Foundation
import Testing
import MetronomeTestSupport

/// The tests' scratch folders go with everything in them: a spoken count's voice folder
/// left 536 KB in /tmp for each test that made one.
struct TemporaryDirectoryTests {
    @Test func aDirectoryGoesWithItsFoldersFilesAndFifos() throws {
        var directory: TemporaryDirectory? = TemporaryDirectory()
        let path = directory!.path
        try FileManager.default.createDirectory(atPath: directory!.file("voice/deeper"), withIntermediateDirectories: true)
        try Data("one".utf8).write(to: URL(fileURLWithPath: directory!.file("voice/deeper/1.wav")))
        try Data("map".utf8).write(to: URL(fileURLWithPath: directory!.file("map.txt")))
        #expect(mkfifo(directory!.file("voice/beat.fifo"), 0o600) == 0)
        #expect(directory!.contents() == ["map.txt", "voice"])
        directory = nil
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
