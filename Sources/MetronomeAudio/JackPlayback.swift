import Synchronization
import MetronomeSupport
import MetronomeTiming
import MetronomeLink

/// One JACK process cycle, as the playback needs it.
package struct JackCycle: Sendable, Equatable {
    /// JACK's frame time at the cycle's first frame (`jack_last_frame_time`); wraps at 2³².
    package var firstFrame: UInt32
    /// When the cycle began, in microseconds of JACK's clock (`jack_get_cycle_times`).
    package var microseconds: UInt64
    /// When the cycle began on our clock (JACK's runs apart from `CLOCK_MONOTONIC`).
    package var startedAt: MonotonicInstant
    /// When the process callback ran, on our clock.
    package var wokeAt: MonotonicInstant
    /// Frames in the cycle.
    package var frames: Int
    /// Frames from the cycle's first frame being written to its being heard:
    /// the output port's playback latency (the largest of its range).
    package var latency: Int
    /// The transport at the cycle's first frame, when the clicks follow it.
    package var transport: MasterPosition?
    /// Whether the callback ran after the cycle's end, when the next was due
    /// (`jack_get_time` past the cycle times' next): the graph catching up.
    package var ranLate: Bool

    /// `startedAt` and `wokeAt`: by default the microseconds, as if JACK's clock were ours and the callback ran on time.
    package init(firstFrame: UInt32, microseconds: UInt64, startedAt: MonotonicInstant? = nil, wokeAt: MonotonicInstant? = nil,
                 frames: Int, latency: Int, transport: MasterPosition? = nil, ranLate: Bool = false) {
        self.firstFrame = firstFrame
        self.microseconds = microseconds
        let started = startedAt ?? MonotonicInstant(nanoseconds: Int64(microseconds) * 1_000)
        self.startedAt = started
        self.wokeAt = wokeAt ?? started
        self.frames = frames
        self.latency = latency
        self.transport = transport
        self.ranLate = ranLate
    }
}

/// Plays a click track from a JACK client's process callback: each cycle the
/// track renders its frames into the output port's buffer, so every click
/// lands on its exact frame of the cycle.
///
/// The grid keeps real time. JACK's frame time does not move while the server
/// itself is stopped (an xrun of its own), so time lost is the larger of what
/// the frame time and the cycle's microseconds say passed beyond the last
/// cycle's frames: the track skips it, dropping the clicks due in it.
/// PipeWire's JACK instead runs the cycles it owes in a burst, each after
/// its time: what a client writes then reaches the sink when the graph gets
/// to it, at times a cycle later than the frame time says, so a cycle run
/// after its end is time lost too, written as silence. One stretch of lost
/// time is one underrun.
/// `process` allocates nothing, takes no lock and does no I/O.
package final class JackPlayback: ClickPlayer, @unchecked Sendable {
    package let track: ClickTrack
    package let position: AudiblePosition
    package let rate: SampleRate
    package let link: LinkConductor?
    package let outputName: String
    /// Frames over which a stop fades to silence (5 ms).
    package var fadeFrames: Int64 { fade.frames }
    package var scheduling: RealTimeScheduling? { nil }

    private let played: PlayedAudio?
    private let host: any JackHost
    private let commands = LockFreeQueue<PracticeCommand>(capacity: 256)
    private let started = Atomic<Bool>(false)
    private let stopRequested = Atomic<Bool>(false)
    private let endHeard = Atomic<Bool>(false)
    private let underrunCount = Atomic<Int>(0)
    private let latencyFrames = Atomic<Int>(0)

    // The process callback's own state.
    /// Where a stop ends, and its fade; for a `--duration` track, at its last frame.
    private var fade: StopFade
    /// The track's frame after which only silence is written, once known.
    private var lastFrame: Int64?
    private var last: JackCycle?
    private var lostTime: JackLostTime
    /// Whether the last cycle lost time: the next one that does continues the same underrun.
    private var losing = false
    /// Track frames written, the silence after the end included.
    private var written: Int64 = 0
    /// Following a transport: its timebase master's beats, placed a cycle at a time.
    private var follower = TransportFollower()
    private let followed = UnsafeMutableBufferPointer<FollowedClick>.allocate(capacity: 32)
    /// The master's tempo and bar as last published, for the picture while the transport stands.
    private var masterTempo: Tempo
    private var masterBeats: Int
    /// The master's beat type, which the MIDI clock counts its beats in; nil before it says one.
    private var masterNoteValue: Int?
    /// Without a master, whether the transport rolled at the last cycle (our own grid starts and stops with it).
    private var ownGridRolls = true
    /// The last cycle's output (a buffer a voice), written again if the cycle is run again (`repeatedFrames`).
    private let lastOutput = VoiceBuffers(bell: .allocate(capacity: JackPlayback.repeatedFrames), beat: .allocate(capacity: JackPlayback.repeatedFrames),
                                          subdivision: .allocate(capacity: JackPlayback.repeatedFrames),
                                          polyrhythm: .allocate(capacity: JackPlayback.repeatedFrames))
    private var lastOutputCount = 0
    /// `--midi-notes`: the clicks as notes on a MIDI port, at the frames of their sounds.
    private var notes: ClickNotes?
    private let startedClicks: StartedClicks?
    /// `--midi-clock`: the track's clock messages of a cycle.
    private let clockMessages: MIDIMessages?
    /// The cycle's MIDI messages (notes and clock) in order, kept to be written again if the cycle is run again.
    private let cycleMessages: MIDIMessages?
    private var cycleMessagesStart: Int64 = 0
    /// `--midi-in`: the messages that came in, each with the frame heard then, for the UI loop.
    package let receivedMIDI: LockFreeQueue<ReceivedMIDI>?
    /// `--follow-midi-clock`: the clicks where an incoming MIDI clock says, and how many this cycle.
    private let midiClock: MIDIClockFollower?
    private var midiClickCount = 0
    /// For other threads: whether the clicks follow a MIDI clock, and whether it plays.
    private let followsMIDIClock: Bool
    private let midiClockPlaying = Atomic<Bool>(false)
    package var midiClockPlays: Bool? { followsMIDIClock ? midiClockPlaying.load(ordering: .relaxed) : nil }

    /// `host` is the client, activated with this playback before `start()`
    /// (it plays silence until then) and closed by `join()`.
    /// `notes`: the clicks as MIDI notes too, and with `clock` a MIDI clock,
    /// written by `process` into the MIDI buffer it is given.
    package init(track: ClickTrack, host: any JackHost, link: LinkConductor? = nil, played: PlayedAudio? = nil,
                 position: AudiblePosition? = nil, notes: ClickNotes? = nil, clock: Bool = false, midiIn: Bool = false,
                 followMIDIClock: Bool = false) {
        self.track = track
        self.notes = notes
        startedClicks = notes == nil ? nil : StartedClicks()
        track.startedInBlock = startedClicks
        clockMessages = clock ? MIDIMessages() : nil
        track.clockInBlock = clockMessages
        receivedMIDI = midiIn || followMIDIClock ? LockFreeQueue(capacity: 1_024) : nil
        midiClock = followMIDIClock ? MIDIClockFollower(rate: host.rate, meter: track.schedule.meter) : nil
        followsMIDIClock = followMIDIClock
        cycleMessages = notes == nil && !clock ? nil : MIDIMessages(capacity: 1_024 + 2 * StartedClicks.capacity + ClickNotes.mostReleases)
        self.host = host
        self.link = link
        self.played = played
        rate = host.rate
        outputName = host.name
        self.position = position ?? AudiblePosition(rate: host.rate)
        fade = StopFade(rate: host.rate, track: track)
        lostTime = JackLostTime(catchesUp: host.catchesUp)
        masterTempo = track.schedule.tempo
        masterBeats = track.schedule.meter.beatsPerBar
    }

    deinit {
        followed.deallocate()
        for voice in 0..<4 { lastOutput[slot: voice].deallocate() }
    }

    package var underruns: Int { underrunCount.load(ordering: .relaxed) }
    package var followsTransport: Bool { host.drivesTransport || followsMIDIClock }
    /// Each cycle's heard frame is its first frame less the port's latency, at its start on JACK's filtered clock: exact.
    package var publishesExactPositions: Bool { true }
    /// Finished once the last frame was heard, or the server went away.
    package var isFinished: Bool { endHeard.load(ordering: .acquiring) || host.isShutDown }
    package var failure: SinkError? { host.isShutDown ? .serverGone : nil }
    /// The output port's playback latency, as the last cycle saw it.
    package var latencyTenths: Int64? {
        let rate = rate.framesPerSecond
        return (Int64(latencyFrames.load(ordering: .relaxed)) * 10_000 + rate / 2) / rate
    }

    /// The track starts at the next cycle's first frame.
    package func start() { started.store(true, ordering: .releasing) }

    /// Following or leading a transport, a pause or a resume stops or starts it for every client.
    package func send(_ command: PracticeCommand) {
        // Following a MIDI clock, its source starts and stops the clicks.
        if followsMIDIClock, command == .pause || command == .resume { return }
        if host.drivesTransport, command == .pause { return host.stopTransport() }
        if host.drivesTransport, command == .resume { return host.startTransport() }
        commands.push(command)
    }

    package func stop() { stopRequested.store(true, ordering: .releasing) }

    package func join() { host.close() }


    /// The most of a cycle kept to be written again, JACK's largest buffer
    /// (and PipeWire's largest quantum): any more of a repeated cycle is silence.
    static let repeatedFrames = 8_192

    /// The process callback's work: renders `cycle`'s frames into `output`. JACK's thread.
    package func process(_ cycle: JackCycle, into output: UnsafeMutablePointer<Float>) {
        process(cycle, output, midi: JackMIDIBuffer?.none, input: JackMIDIInput?.none)
    }

    /// As `process(_:into:)`, each voice into its port's buffer (`--jack-ports split`);
    /// the inspector's record gets their sum.
    package func process(_ cycle: JackCycle, into voices: VoiceBuffers) {
        process(cycle, voices, midi: JackMIDIBuffer?.none, input: JackMIDIInput?.none)
    }

    /// As `process(_:into:)`, and the cycle's MIDI (`--midi-notes`, `--midi-clock`) into `midi`, cleared by the caller.
    package func process<MIDI: MIDIEventOutput>(_ cycle: JackCycle, into output: UnsafeMutablePointer<Float>, midi: MIDI?) {
        process(cycle, output, midi: midi, input: JackMIDIInput?.none)
    }

    /// As `process(_:into:midi:)`, and the messages that came in on the MIDI input (`--midi-in`) handed on.
    package func process<MIDI: MIDIEventOutput, Input: MIDIEventInput>(_ cycle: JackCycle, into output: UnsafeMutablePointer<Float>,
                                                                       midi: MIDI?, input: Input?) {
        process(cycle, output, midi: midi, input: input)
    }

    /// As `process(_:into:)` with a port a voice, the cycle's MIDI into `midi`, and what came in from `input`.
    package func process<MIDI: MIDIEventOutput, Input: MIDIEventInput>(_ cycle: JackCycle, into voices: VoiceBuffers, midi: MIDI?,
                                                                       input: Input?) {
        process(cycle, voices, midi: midi, input: input)
    }

    private func process<Output: ClickOutput, MIDI: MIDIEventOutput, Input: MIDIEventInput>(_ cycle: JackCycle, _ output: Output, midi: MIDI?,
                                                                                            input: Input?) {
        // As JACK counts it (and LinkHut takes it): a port that leads to no system
        // output (a recorder, a mixer's input) is heard there at once.
        let latency = cycle.latency
        latencyFrames.store(latency, ordering: .relaxed)
        guard started.load(ordering: .acquiring) else {
            output.update(repeating: 0, count: cycle.frames)
            return
        }
        // PipeWire's JACK, catching up after its server stalled, at times runs a client twice in
        // one cycle (the same frame time and microseconds) into another buffer, which the graph keeps.
        if let last, cycle.firstFrame == last.firstFrame {
            output.restore(from: lastOutput, count: min(lastOutputCount, cycle.frames))
            if cycle.frames > lastOutputCount { output.advanced(by: lastOutputCount).update(repeating: 0, count: cycle.frames - lastOutputCount) }
            if let midi { cycleMessages?.write(from: cycleMessagesStart, into: midi) }
            return
        }
        let measured = lostTime.lost(before: cycle, rate: rate.framesPerSecond)
        let lost = last == nil ? 0 : measured
        let late = lostTime.isLost(cycle) && lastFrame == nil
        if (lost > 0 || late), lastFrame == nil, !losing {
            underrunCount.add(1, ordering: .relaxed)
            link?.restart()
        }
        losing = lost > 0 || late
        if lost > 0, lastFrame == nil { track.skip(to: track.position + lost) }
        written += lost
        last = cycle
        if stopRequested.load(ordering: .acquiring), lastFrame == nil {
            fade.stop(at: track.position)
        }
        while let command = commands.pop() {
            if let link, link.apply(command) { continue }
            track.apply(command)
        }
        let blockStart = written
        midiClickCount = 0
        if let input, let receivedMIDI { receive(input, cycleFrom: blockStart, latency: latency, into: receivedMIDI) }
        var rendered = 0
        startedClicks?.removeAll()
        clockMessages?.removeAll()
        if late {
            track.skip(to: track.position + Int64(cycle.frames))
            output.update(repeating: 0, count: cycle.frames)
            rendered = cycle.frames
            if blockStart + Int64(rendered) >= fade.end { lastFrame = blockStart + Int64(rendered) }
        } else if lastFrame == nil {
            rendered = render(cycle, into: output)
            rendered = fade.apply(to: output, from: blockStart, count: rendered)
            if let played { output.record(in: played, count: rendered, at: blockStart) }
            if rendered < cycle.frames || blockStart + Int64(rendered) >= fade.end {
                lastFrame = blockStart + Int64(rendered)
            }
        }
        if rendered < cycle.frames { output.advanced(by: rendered).update(repeating: 0, count: cycle.frames - rendered) }
        if let midi { writeMIDI(cycleFrom: blockStart, frames: cycle.frames, rendered: rendered, into: midi) }
        lastOutputCount = min(cycle.frames, Self.repeatedFrames)
        output.keep(in: lastOutput, count: lastOutputCount)
        written += Int64(cycle.frames)
        let stamp = cycle.startedAt
        let heard = blockStart - Int64(latency)
        position.publish(heard: heard, at: stamp, written: lastFrame ?? written)
        link?.observe(heard: heard, at: stamp)
        // Done once the end has been heard: its last frame reached the ear by this cycle's start.
        if let lastFrame, heard >= lastFrame {
            endHeard.store(true, ordering: .releasing)
        }
    }

    /// Hands on each message that came in this cycle, whose first track frame
    /// is `start`, with the frame heard at its time (the cycle's first heard
    /// frame and its offset); the clock's messages go to the MIDI clock
    /// follower instead, if there is one (clocks to nobody else).
    private func receive(_ input: some MIDIEventInput, cycleFrom start: Int64, latency: Int, into queue: LockFreeQueue<ReceivedMIDI>) {
        var index = 0
        while index < input.count {
            defer { index += 1 }
            guard let (offset, message) = input.event(index) else { continue }
            let clockMessage = message.status == 0xF8 || message.status == 0xFA || message.status == 0xFB || message.status == 0xFC
                || message.status == 0xF2
            if clockMessage, let midiClock {
                midiClock.receive(message.status, message.data1, message.data2, frame: start + Int64(offset), offset: offset,
                                  into: followed, count: &midiClickCount)
                continue
            }
            if message.status == 0xF8 { continue }
            queue.push(ReceivedMIDI(heardFrame: start - Int64(latency) + Int64(offset), message: message))
        }
    }

    /// The cycle's MIDI messages: the clock's, then the notes', in order of frame
    /// (the clock's first at one frame), kept for a second run of the cycle.
    private func writeMIDI(cycleFrom start: Int64, frames: Int, rendered: Int, into midi: some MIDIEventOutput) {
        guard let cycleMessages else { return }
        // The run's end: the clock's receiver stops with its last frame, after the ticks before it.
        let end = start + Int64(min(rendered, frames))
        if lastFrame != nil { track.stopClock(at: max(start, end - 1)) }
        cycleMessages.removeAll()
        if let clockMessages {
            var index = 0
            while index < clockMessages.count {
                let (frame, message) = clockMessages[index]
                if lastFrame == nil || frame < end || message == .stop { cycleMessages.append(message, at: frame) }
                index += 1
            }
        }
        notes?.write(cycleFrom: start, frames: frames, started: startedClicks, into: cycleMessages)
        cycleMessages.sortByFrame()
        cycleMessages.write(from: start, into: midi)
        cycleMessagesStart = start
    }

    /// The cycle's frames of the track: its own grid, Link's beats, or the transport's master's.
    private func render<Output: ClickOutput>(_ cycle: JackCycle, into output: Output) -> Int {
        if let midiClock {
            let playing = midiClock.plays(at: track.position + Int64(cycle.frames))
            midiClockPlaying.store(playing, ordering: .relaxed)
            if let tempo = midiClock.tempo { masterTempo = tempo }
            track.render(output, count: cycle.frames, placing: playing || midiClickCount > 0 ? UnsafeBufferPointer(rebasing: followed[0..<midiClickCount]) : nil,
                         tempo: masterTempo, beatsPerBar: masterBeats)
            return cycle.frames
        }
        guard let transport = cycle.transport else {
            if let link { return track.render(output, count: cycle.frames, following: link) }
            return track.render(output, count: cycle.frames)
        }
        // Each click heard when the master's beat falls, as Ardour sends its own: ahead by the port's latency.
        switch follower.follow(transport, frames: cycle.frames, ahead: cycle.latency, into: followed) {
        case .stopped:
            track.render(output, count: cycle.frames, placing: nil, tempo: masterTempo, beatsPerBar: masterBeats)
        case .following(let clicks):
            if let bbt = transport.bbt {
                masterTempo = Tempo(clamping: Int64((bbt.beatsPerMinute * 1_000).rounded()))
                masterBeats = max(1, Int(bbt.beatsPerBar.rounded()))
                masterNoteValue = Int(bbt.beatType.rounded())
            }
            track.render(output, count: cycle.frames, placing: UnsafeBufferPointer(rebasing: followed[0..<clicks]),
                         tempo: masterTempo, beatsPerBar: masterBeats, noteValue: masterNoteValue, retime: true)
        case .ownGrid(let rolling):
            if rolling != ownGridRolls {
                ownGridRolls = rolling
                track.apply(rolling ? .resume : .pause)
            }
            return track.render(output, count: cycle.frames)
        }
        return cycle.frames
    }
}

/// The JACK client a `JackPlayback` plays through (`JackOutput`), which
/// calls its `process` once a cycle with the output ports' buffers.
package protocol JackHost: AnyObject, Sendable {
    var rate: SampleRate { get }
    /// The client's name, for messages.
    var name: String { get }
    /// Whether the server shut the client down.
    var isShutDown: Bool { get }
    /// Whether its frame time catches up with real time after a stall (PipeWire's JACK).
    var catchesUp: Bool { get }
    /// Whether the clicks follow JACK's transport, which Space then starts and stops.
    var drivesTransport: Bool { get }
    func startTransport()
    func stopTransport()
    /// Stops the cycles and leaves the server.
    func close()
}
