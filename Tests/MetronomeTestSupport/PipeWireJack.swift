import Foundation

/// PipeWire's JACK in the private session: programs run under `pw-jack`
/// (pipewire-jack), which puts PipeWire's `libjack.so.0` first on
/// LD_LIBRARY_PATH, so a client that loads libjack (the metronome's `dlopen`,
/// a recorder linked with `-ljack`) is a node of this session's graph, never
/// a jackd's.
extension PipeWireSession {
    package static let jackWrapper = "/usr/bin/pw-jack"
    package static let jackLibrary = "/usr/lib/x86_64-linux-gnu/pipewire-0.3/jack/libjack.so.0"
    package static var jackIsInstalled: Bool {
        isInstalled && [jackWrapper, jackLibrary, "/usr/bin/pw-dump"].allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }

    /// Starts `executable` under `pw-jack` in the session, its output to `log`.
    /// `pw-jack` execs the program: the process is the program's own.
    package func startUnderJack(_ executable: String, _ arguments: [String], log: String) throws -> Process {
        try start(Self.jackWrapper, [executable] + arguments, log: log)
    }

    /// The names of the session's nodes that the process `pid` made through
    /// PipeWire's JACK (`pw-dump`: a client with `client.api` "jack" and that
    /// process id, and the nodes it owns).
    package func jackNodes(ofProcess pid: Int32) throws -> [String] {
        let dumped = try run("/usr/bin/pw-dump", [], environment: environment)
        guard dumped.status == 0, let objects = try JSONSerialization.jsonObject(with: Data(dumped.standardOutput.utf8)) as? [[String: Any]]
        else { return [] }
        func properties(_ object: [String: Any]) -> [String: Any] { (object["info"] as? [String: Any])?["props"] as? [String: Any] ?? [:] }
        func isType(_ object: [String: Any], _ type: String) -> Bool { (object["type"] as? String)?.hasSuffix(":\(type)") == true }
        let clients = Set(objects.filter { object in
            let props = properties(object)
            return isType(object, "Client") && props["client.api"] as? String == "jack"
                && (props["application.process.id"] as? NSNumber)?.int32Value == pid
        }.compactMap { ($0["id"] as? NSNumber)?.intValue })
        return objects.filter { isType($0, "Node") && clients.contains((properties($0)["client.id"] as? NSNumber)?.intValue ?? -1) }
            .compactMap { properties($0)["node.name"] as? String }
    }

    /// The ports connected to `port` (`pw-link -l`), as `node:port`.
    package func links(of port: String) throws -> [String] {
        let listed = try run("/usr/bin/pw-link", ["-l"], environment: environment).standardOutput.split(separator: "\n").map(String.init)
        guard let index = listed.firstIndex(of: port) else { return [] }
        return listed[(index + 1)...].prefix { $0.hasPrefix(" ") }.map {
            $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "|-> ", with: "").replacingOccurrences(of: "|<- ", with: "")
        }
    }

    /// The stretches of graph time a finished recorder missed (`gap at frame F: N frames`), in its file's frames.
    package func gapsInRecording(file: String) -> [(frame: Int64, frames: Int64)] {
        stretches("gap", file: file)
    }

    /// The stretches of graph time a finished recorder took after their end, the
    /// graph catching up after a stall (`late at frame F: N frames`), in its file's frames.
    package func lateInRecording(file: String) -> [(frame: Int64, frames: Int64)] {
        stretches("late", file: file)
    }

    private func stretches(_ kind: String, file: String) -> [(frame: Int64, frames: Int64)] {
        log("\((file as NSString).lastPathComponent).log").split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard line.hasPrefix("\(kind) at frame "), words.count == 6, let frame = Int64(words[3].dropLast()), let frames = Int64(words[4])
            else { return nil }
            return (frame, frames)
        }
    }
}
