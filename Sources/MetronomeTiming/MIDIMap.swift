/// `--midi-map FILE`: what incoming MIDI messages do (`--midi-in`). One
/// binding a line, `#` to the end of a line a comment:
///
///     note 36 tap                 # a pad
///     note 37 channel 10 start-stop
///     cc 64 start-stop            # a sustain pedal as a foot switch
///     program 3 next-song
///     cc 7 tempo 40-240           # the controller's 0-127 over 40 to 240 bpm
///
/// A note binds its note-ons (velocity above 0); a controller binds its
/// press (its value reaching 64 from below), or for `tempo` every value; a
/// program change binds that program. Without `channel` (1 to 16), any
/// channel. The actions are the live keys': `tap`, `start-stop`, `start`,
/// `stop`, `next-song`, `previous-song`, `faster` and `slower` (1 bpm),
/// `much-faster` and `much-slower` (5 bpm), `double`, `half`, `mute`,
/// `louder`, `softer`, `meter N` (N beats a bar, 1 to 9).
/// Pure: parses and answers, and keeps the controllers' last values.
package struct MIDIMap: Sendable, Equatable {
    package enum Action: Sendable, Equatable {
        case tap, startStop, start, stop, nextSong, previousSong
        case faster, slower, muchFaster, muchSlower, double, half
        case mute, louder, softer
        case meter(Int)
        /// A controller's value over a range of tempos.
        case tempo(low: Tempo, high: Tempo)
    }

    package enum Trigger: Sendable, Equatable {
        case note(UInt8)
        case controller(UInt8)
        case program(UInt8)
    }

    package struct Binding: Sendable, Equatable {
        package let trigger: Trigger
        /// 0 to 15; nil: any channel.
        package let channel: UInt8?
        package let action: Action

        package init(_ trigger: Trigger, channel: UInt8? = nil, _ action: Action) {
            self.trigger = trigger
            self.channel = channel
            self.action = action
        }
    }

    package let bindings: [Binding]

    package init(bindings: [Binding]) {
        self.bindings = bindings
    }

    /// Without `--midi-map`: the first four pads of most controllers (notes
    /// 36 to 39: tap, start and stop, next and previous song) and a sustain
    /// pedal (CC 64) as a foot switch for start and stop.
    package static let standard = MIDIMap(bindings: [
        Binding(.note(36), .tap), Binding(.note(37), .startStop), Binding(.note(38), .nextSong), Binding(.note(39), .previousSong),
        Binding(.controller(64), .startStop),
    ])

    /// What a message does: the binding's action, or for a tempo controller
    /// the tempo its value says; a sequencer's Start and Continue start the
    /// metronome, its Stop stops it. `lastValues` holds each controller's
    /// last value on each channel (a press is a value reaching 64 from below).
    package func response(to status: UInt8, _ data1: UInt8, _ data2: UInt8, lastValues: inout [UInt8]) -> Response? {
        switch status {
        case 0xFA, 0xFB: return .action(.start)
        case 0xFC: return .action(.stop)
        default: break
        }
        let channel = status & 0x0F
        let trigger: Trigger
        var pressed = true
        switch status & 0xF0 {
        case 0x90 where data2 > 0: trigger = .note(data1)
        case 0xB0:
            trigger = .controller(data1)
            if lastValues.count < 16 * 128 { lastValues = Array(repeating: 0, count: 16 * 128) }
            let held = Int(channel) * 128 + Int(data1 & 0x7F)
            pressed = data2 >= 64 && lastValues[held] < 64
            lastValues[held] = data2
        case 0xC0: trigger = .program(data1)
        default: return nil
        }
        guard let binding = bindings.first(where: { $0.trigger == trigger && ($0.channel == nil || $0.channel == channel) }) else { return nil }
        if case .tempo(let low, let high) = binding.action {
            // Linear over 0...127, in tenths of a bpm, rounded half up.
            let lowTenths = low.millibeatsPerMinute / 100, highTenths = high.millibeatsPerMinute / 100
            let tenths = lowTenths + ((highTenths - lowTenths) * Int64(data2) * 2 + 127) / 254
            return .tempo(Tempo(clamping: tenths * 100))
        }
        return pressed ? .action(binding.action) : nil
    }

    package enum Response: Sendable, Equatable {
        case action(Action)
        case tempo(Tempo)
    }

    /// `--midi-learn`: the map line that would bind `message` (its action a
    /// placeholder), or nil for a message no line binds (a note-off).
    package static func learnLine(_ status: UInt8, _ data1: UInt8, _ data2: UInt8) -> String? {
        let channel = " channel \(status & 0x0F + 1)"
        switch status & 0xF0 {
        case 0x90 where data2 > 0: return "note \(data1)\(channel) ACTION"
        case 0xB0: return "cc \(data1)\(channel) ACTION    # value \(data2)"
        case 0xC0: return "program \(data1)\(channel) ACTION"
        default:
            switch status {
            case 0xFA: return "# Start: starts the metronome"
            case 0xFB: return "# Continue: starts the metronome"
            case 0xFC: return "# Stop: stops the metronome"
            default: return nil
            }
        }
    }

    // MARK: Parsing

    static let actions: [String: Action] = [
        "tap": .tap, "start-stop": .startStop, "start": .start, "stop": .stop, "next-song": .nextSong, "previous-song": .previousSong,
        "faster": .faster, "slower": .slower, "much-faster": .muchFaster, "much-slower": .muchSlower, "double": .double, "half": .half,
        "mute": .mute, "louder": .louder, "softer": .softer,
    ]

    /// The key action a map line (and an OSC path, `/metronome/NAME`) names, such as `tap` or `next-song`.
    package static func action(named name: String) -> Action? { actions[name] }

    /// Parses a map; `name` starts every error message (`name:line:column: what is wrong`).
    package init(parsing bytes: [UInt8], name: String) throws(TimingError) {
        var bindings: [Binding] = []
        // Split as bytes: a CR LF is one Character to Swift.
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let text = bytes.starts(with: byteOrderMark) ? bytes.dropFirst(3) : bytes[...]
        let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, bytesOfLine) in lines.enumerated() {
            let content = bytesOfLine.last == 0x0D ? bytesOfLine.dropLast() : bytesOfLine
            guard let text = String(validating: content, as: UTF8.self) else {
                throw TimingError(.malformed, "\(name):\(index + 1):1: the MIDI map is not UTF-8 text")
            }
            var line = text[...]
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            // Each word with its column (from 1).
            var words: [(text: Substring, column: Int)] = []
            var column = 1, start: Substring.Index?, startColumn = 1
            for position in line.indices {
                let blank = line[position] == " " || line[position] == "\t"
                if blank, let begun = start {
                    words.append((line[begun..<position], startColumn))
                    start = nil
                } else if !blank, start == nil {
                    start = position
                    startColumn = column
                }
                column += 1
            }
            if let begun = start { words.append((line[begun...], startColumn)) }
            guard !words.isEmpty else { continue }
            bindings.append(try Self.binding(words, at: "\(name):\(index + 1)", lineEnd: column))
        }
        guard !bindings.isEmpty else {
            throw TimingError(.malformed, "\(name):\(max(1, lines.count)):1: the MIDI map binds nothing: write e.g. 'note 36 tap'")
        }
        self.bindings = bindings
    }

    private static func binding(_ words: [(text: Substring, column: Int)], at place: String, lineEnd: Int) throws(TimingError) -> Binding {
        var next = 0
        func word(_ what: String) throws(TimingError) -> (text: Substring, column: Int) {
            guard next < words.count else { throw TimingError(.malformed, "\(place):\(lineEnd): \(what) is missing") }
            next += 1
            return words[next - 1]
        }
        func number(_ what: String, in range: ClosedRange<Int>) throws(TimingError) -> Int {
            let (text, column) = try word(what)
            guard let value = Int(text), range.contains(value) else {
                throw TimingError(.malformed, "\(place):\(column): \(what) '\(text)' is not a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        let (kind, kindColumn) = try word("a message kind")
        let trigger: Trigger
        switch kind {
        case "note": trigger = .note(UInt8(try number("the note", in: 0...127)))
        case "cc": trigger = .controller(UInt8(try number("the controller", in: 0...127)))
        case "program": trigger = .program(UInt8(try number("the program", in: 0...127)))
        default:
            throw TimingError(.malformed, "\(place):\(kindColumn): '\(kind)' is not a MIDI message this map binds: use note, cc or program")
        }
        var channel: UInt8?
        if next < words.count, words[next].text == "channel" {
            next += 1
            channel = UInt8(try number("the channel", in: 1...16) - 1)
        }
        let (name, nameColumn) = try word("the action")
        let action: Action
        if let plain = actions[String(name)] {
            action = plain
        } else if name == "meter" {
            action = .meter(try number("the beats a bar", in: 1...9))
        } else if name == "tempo" {
            guard case .controller = trigger else {
                throw TimingError(.malformed, "\(place):\(nameColumn): tempo takes a controller's value: bind it to a cc")
            }
            let (range, rangeColumn) = try word("the tempo range")
            let ends = range.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 2, let low = try? Tempo(parsing: String(ends[0])), let high = try? Tempo(parsing: String(ends[1])), low < high else {
                throw TimingError(.malformed, "\(place):\(rangeColumn): tempo range '\(range)' is not LOW-HIGH in bpm from 1 to 1000, e.g. 40-240")
            }
            action = .tempo(low: low, high: high)
        } else {
            throw TimingError(.malformed, "\(place):\(nameColumn): '\(name)' is not an action: use tap, start-stop, start, stop, next-song, "
                              + "previous-song, faster, slower, much-faster, much-slower, double, half, mute, louder, softer, meter N or tempo LOW-HIGH")
        }
        if next < words.count {
            throw TimingError(.malformed, "\(place):\(words[next].column): '\(words[next].text)' follows the action: one binding a line")
        }
        return Binding(trigger, channel: channel, action)
    }
}
