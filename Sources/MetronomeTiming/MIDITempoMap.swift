extension TempoMap {
    /// The tempo map a MIDI file's tempo (FF 51) and time-signature (FF 58)
    /// events make, up to the end of its last track: a beat is the time
    /// signature's note value (4/4 and 120 quarter notes a minute until the
    /// file says otherwise, as the format has it), a bar its beats from the
    /// time signature on. Each beat's length is the exact sum of its ticks
    /// times the microseconds a quarter of each tempo it spans. A run of bars
    /// in one meter is an entry; a marker (FF 06) starts one and labels it. A
    /// bar cut short (by a time signature within it, or by the file's end)
    /// is a bar of the beats it has; after a file that ends so (DAW exports
    /// often do), the bars go on in the time signature in force.
    package init(midi file: MIDIFile, name: String) throws(TimingError) {
        let perQuarter = file.ticksPerQuarter
        // Sub-ticks, so that a beat of a 32nd note is a whole number of them.
        let scale = 8 / Self.gcd(perQuarter, 8)
        var events: [MIDIEvent] = []
        for track in file.tracks { events += track.events }
        events = events.enumerated().sorted { $0.element.tick != $1.element.tick ? $0.element.tick < $1.element.tick : $0.offset < $1.offset }.map(\.element)
        let end = (file.tracks.map(\.end).max() ?? 0) * scale
        let tempos = events.compactMap { event -> (Int64, Int64)? in
            if case .tempo(let micro) = event.message { return (event.tick * scale, micro) }
            return nil
        }
        let meters = events.compactMap { event -> (Int64, Int, Int)? in
            if case .timeSignature(let beats, let note) = event.message { return (event.tick * scale, beats, note) }
            return nil
        }
        let markers = events.compactMap { event -> (Int64, String)? in
            if case .marker(let text) = event.message { return (event.tick * scale, text) }
            return nil
        }

        // The time at sub-tick `x`, in microseconds times ticks a quarter times the scale: the sum of sub-ticks times tempos.
        var tempoIndex = 0, tempoStart: Int64 = 0, tempo: Int64 = 500_000, timeAtStart: Int128 = 0
        func time(at x: Int64) -> Int128 {
            while tempoIndex < tempos.count, tempos[tempoIndex].0 <= x {
                timeAtStart += Int128(tempos[tempoIndex].0 - tempoStart) * Int128(tempo)
                tempoStart = tempos[tempoIndex].0
                tempo = tempos[tempoIndex].1
                tempoIndex += 1
            }
            return timeAtStart + Int128(x - tempoStart) * Int128(tempo)
        }

        struct Bar {
            var meter: Meter
            var beats: [Int128]
            var start: Int64
            var label: String?
        }
        var bars: [Bar] = []
        var meterIndex = 0
        var meter = Meter.common
        var position: Int64 = 0
        var beatStart = time(at: 0)
        var seconds: Int128 = 0
        let week = Int128(TempoMap.longestSeconds) * 1_000_000 * Int128(perQuarter * scale)
        while position < end {
            // A time signature here starts a new bar.
            var barStarts = bars.isEmpty || bars[bars.count - 1].beats.count == bars[bars.count - 1].meter.beatsPerBar
            while meterIndex < meters.count, meters[meterIndex].0 <= position {
                let (_, beats, note) = meters[meterIndex]
                guard let next = Meter(beatsPerBar: beats, noteValue: note) else {
                    throw TimingError(.malformed, "\(name): the time signature \(beats)/\(note) at tick \(meters[meterIndex].0 / scale) has more than \(Meter.maximumBeats) beats")
                }
                meter = next
                barStarts = true
                meterIndex += 1
            }
            if barStarts { bars.append(Bar(meter: meter, beats: [], start: position)) }
            var beatEnd = position + 4 * perQuarter * scale / Int64(meter.noteValue)
            if meterIndex < meters.count { beatEnd = min(beatEnd, meters[meterIndex].0) }
            let endTime = time(at: beatEnd)
            // As fast as a metronome goes, and no faster: 1000 beats a minute (a beat cut short by a time signature aside).
            if beatEnd - position == 4 * perQuarter * scale / Int64(meter.noteValue), endTime - beatStart < 60_000 * Int128(perQuarter * scale) {
                throw TimingError(.malformed, "\(name): the beat at tick \(position / scale) is faster than 1000 beats a minute (its tempo is too fast to play)")
            }
            bars[bars.count - 1].beats.append(endTime - beatStart)
            seconds += endTime - beatStart
            guard seconds <= week else {
                throw TimingError(.malformed, "\(name): the tempo map up to tick \(beatEnd / scale) lasts more than a week")
            }
            beatStart = endTime
            position = beatEnd
        }
        guard !bars.isEmpty else {
            throw TimingError(.malformed, "\(name): the file's tracks end at tick 0: it has no beats to play")
        }
        // Each marker labels the bar it falls in (the first marker of a bar).
        var barIndex = 0
        for (tick, text) in markers where tick < end {
            while barIndex + 1 < bars.count, bars[barIndex + 1].start <= tick { barIndex += 1 }
            if bars[barIndex].label == nil { bars[barIndex].label = text }
        }

        let denominator = UInt64(perQuarter * scale)
        var entries: [Entry] = []
        var runs: [ExactBeats] = []
        for (index, bar) in bars.enumerated() {
            // A bar cut short plays the beats it has.
            let meter = bar.beats.count == bar.meter.beatsPerBar ? bar.meter : Meter(beatsPerBar: bar.beats.count, noteValue: bar.meter.noteValue)!
            let continues = index > 0 && bar.label == nil && entries[entries.count - 1].meter == meter
            if !continues {
                if !entries.isEmpty { entries[entries.count - 1].tempo = .exact(runs) }
                runs = []
                entries.append(Entry(label: bar.label, bars: 0, meter: meter, tempo: .exact([]), pattern: nil, volume: 1))
            }
            entries[entries.count - 1].bars += 1
            for length in bar.beats {
                let beat = ExactBeats(count: 1, microseconds: UInt64(length), per: denominator)
                if let last = runs.last, last.microseconds == beat.microseconds {
                    runs[runs.count - 1].count += 1
                } else {
                    runs.append(beat)
                }
            }
        }
        entries[entries.count - 1].tempo = .exact(runs)
        let last = bars[bars.count - 1]
        self.init(entries: entries, meterAfterEnd: last.beats.count == last.meter.beatsPerBar ? nil : last.meter)
    }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
