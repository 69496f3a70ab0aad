#!/usr/bin/python3
"""JACK transport from the outside, for the transport tests (python3-jack-client).

  jack_transport_probe.py record PORT SECONDS FILE
      Records PORT for SECONDS, or until its input closes: every click (a
      nonzero sample after a zero) as a JSON line with JACK's frame time, the
      transport's state and, while it rolls, the transport frame it fell on.
      Prints "recording" once connected, then "clicks N" as they come.

  jack_transport_probe.py master BPM BEATS_PER_BAR round|floor
      Becomes JACK's timebase master (conditionally) and publishes an exact
      grid: beat b (from 0, bar 1's first) at frame anchor + (b - anchorBeat)
      * 60 * rate / bpm, in fractions. Ticks (1920 a beat) are rounded, as
      Ardour publishes them, or floored. Reads commands on stdin, one a line:
      play, stop, locate FRAME, tempo BPM or meter BEATS (from the next bar
      line), quit. Prints "master" once it holds the role (or "busy" and
      exits 75), and "grid FRAME BEAT BPM BEATS" for each stretch of its grid
      (the first three fractions; BEAT a bar line).

  jack_transport_probe.py read SECONDS FILE [LOCATE...]
      Reads the transport every cycle for SECONDS and writes each cycle's
      position as a JSON line; with LOCATE frames, relocates the transport to
      each in turn, one a second. Prints "reading" once active.

  jack_transport_probe.py midi PORT SECONDS FILE [audio]
      Records the MIDI events PORT sends for SECONDS, each as a JSON line with
      its JACK frame time and its bytes. Prints "recording" once connected.
      PORT "-" connects nothing: the sender connects to probe_midi:in. With
      "audio", an audio input probe_midi:audio too, each nonzero sample a line
      with its frame time and its value (an impulse click is one).

  jack_transport_probe.py send PORT FRAME:HEX[,HEX...] ...
      Sends MIDI messages into PORT, each FRAME frames after the first cycle
      that starts once "go" is read on stdin (FRAME:90,24,64 is a note-on
      of key 36 at that frame). Prints "ready" once connected, then, once all
      are sent, "sent TIME" for each with the JACK frame time it went at.

  jack_transport_probe.py state
      Prints "rolling" or "stopped" (or the state's name).

  jack_transport_probe.py claim
      Tries to become the timebase master conditionally: prints "claimed" or "busy".
"""
import json
import sys
import threading
import time
from fractions import Fraction

import jack

TICKS = 1920


class Run:
    """A client's run: SECONDS of JACK's frame time from its first cycle (or
    less, where its input closing ends it), each cycle adding to `rows`,
    written as JSON lines when it ends."""

    def __init__(self, client, seconds):
        self.client = client
        self.frames = seconds * client.samplerate
        self.end = None
        self.rows = []

    def cycle(self):
        """Called first in each process callback: the end is fixed by the first. Returns the cycle's first frame."""
        start = self.client.last_frame_time
        if self.end is None:
            self.end = start + self.frames
        return start

    def finish(self, path, until_input_closes=False, every=lambda: None):
        """Waits for the end (or the input to close), calling `every` each 50 ms;
        then closes the client and writes the rows to `path`."""
        done = threading.Event()
        if until_input_closes:
            threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
        while not done.wait(0.05):
            every()
            if self.end is not None and self.client.frame_time >= self.end:
                break
        self.client.deactivate()
        self.client.close()
        with open(path, "w") as file:
            for row in self.rows:
                file.write(json.dumps(row) + "\n")


def record(port, seconds, path):
    client = jack.Client("probe_rec", no_start_server=True)
    inport = client.inports.register("in")
    run = Run(client, seconds)
    state = {"last": 0.0}

    @client.set_process_callback
    def process(frames):
        start = run.cycle()
        buffer = memoryview(inport.get_buffer()).cast("f")
        values = buffer.tolist()
        if any(values):
            transport, position = client.transport_query()
            rolling = transport == jack.ROLLING
            last = state["last"]
            for index, value in enumerate(values):
                if value != 0 and last == 0:
                    run.rows.append({"frameTime": start + index, "rolling": rolling,
                                     "transportFrame": position["frame"] + index if rolling else None,
                                     "bell": value < 0})
                last = value
            state["last"] = last
        else:
            state["last"] = 0.0

    client.activate()
    client.connect(port, "probe_rec:in")
    print("recording", flush=True)
    reported = 0

    def report():
        nonlocal reported
        if len(run.rows) != reported:
            reported = len(run.rows)
            print(f"clicks {reported}", flush=True)

    run.finish(path, until_input_closes=True, every=report)


def master(bpm, beats_per_bar, rounding):
    client = jack.Client("probe_master", no_start_server=True)
    rate = client.samplerate
    # The grid: beat(frame) = anchor_beat + (frame - anchor_frame) * bpm / (60 * rate),
    # bars of beats_per_bar from the anchor beat, itself a bar line (bar `bar`).
    grid = {"frame": Fraction(0), "beat": Fraction(0), "bpm": Fraction(bpm), "bpb": beats_per_bar, "bar": 1, "pending": None}

    def beat_at(frame):
        return grid["beat"] + (frame - grid["frame"]) * grid["bpm"] / (60 * rate)

    def frame_of(beat):
        return grid["frame"] + (beat - grid["beat"]) * 60 * rate / grid["bpm"]

    def bar_line_after(beat):
        return grid["beat"] + ((beat - grid["beat"]) // grid["bpb"] + 1) * grid["bpb"]

    def announce():
        print(f"grid {grid['frame']} {grid['beat']} {grid['bpm']} {grid['bpb']}", flush=True)

    def timebase(state, blocksize, position, new_position):
        frame = position.frame
        pending = grid["pending"]
        if pending is not None:
            if "beat" not in pending:
                # The next bar line, fixed when the change is first seen.
                pending["beat"] = bar_line_after(beat_at(frame))
                pending["frame"] = frame_of(pending["beat"])
            # A map's change: published from the first cycle that starts at or after it, as a DAW does.
            if pending["frame"] <= frame:
                grid["bar"] += int((pending["beat"] - grid["beat"]) // grid["bpb"])
                grid["frame"], grid["beat"] = pending["frame"], pending["beat"]
                grid["bpm"] = pending.get("bpm", grid["bpm"])
                grid["bpb"] = pending.get("bpb", grid["bpb"])
                grid["pending"] = None
                announce()
        beats = beat_at(frame)
        whole = beats.numerator // beats.denominator
        ticks = (beats - whole) * TICKS
        tick = int(ticks + Fraction(1, 2)) if rounding == "round" else ticks.numerator // ticks.denominator
        if tick == TICKS:
            whole, tick = whole + 1, 0
        since = whole - int(grid["beat"])
        bars, beat = since // grid["bpb"], since % grid["bpb"]
        position.valid = jack.POSITION_BBT
        position.bar = grid["bar"] + bars
        position.beat = beat + 1
        position.tick = tick
        position.bar_start_tick = float((whole - beat) * TICKS)
        position.beats_per_bar = float(grid["bpb"])
        position.beat_type = 4.0
        position.ticks_per_beat = float(TICKS)
        position.beats_per_minute = float(grid["bpm"])

    client.activate()
    if not client.set_timebase_callback(timebase, conditional=True):
        print("busy", flush=True)
        sys.exit(75)
    print("master", flush=True)
    announce()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "play":
            client.transport_start()
        elif words[0] == "stop":
            client.transport_stop()
        elif words[0] == "locate":
            client.transport_locate(int(words[1]))
        elif words[0] == "tempo":
            grid["pending"] = {"bpm": Fraction(words[1])}
        elif words[0] == "meter":
            grid["pending"] = {"bpb": int(words[1])}
        elif words[0] == "quit":
            break
        print(f"did {line.strip()}", flush=True)
    client.deactivate()
    client.close()


def read(seconds, path, locations):
    client = jack.Client("probe_read", no_start_server=True)
    run = Run(client, seconds)

    @client.set_process_callback
    def process(frames):
        run.cycle()
        transport, position = client.transport_query()
        row = {"rolling": transport == jack.ROLLING, "frame": position["frame"]}
        for key in ("bar", "beat", "tick", "bar_start_tick", "beats_per_bar", "beat_type", "ticks_per_beat", "beats_per_minute"):
            if key in position:
                row[key] = position[key]
        run.rows.append(row)

    client.activate()
    print("reading", flush=True)
    for frame in locations:
        time.sleep(1.0)
        client.transport_locate(int(frame))
    run.finish(path)


def claim():
    client = jack.Client("probe_claim", no_start_server=True)
    client.activate()
    print("claimed" if client.set_timebase_callback(lambda *arguments: None, conditional=True) else "busy", flush=True)
    client.deactivate()
    client.close()


def midi(port, seconds, path, audio=False):
    client = jack.Client("probe_midi", no_start_server=True)
    inport = client.midi_inports.register("in")
    audioport = client.inports.register("audio") if audio else None
    run = Run(client, seconds)

    @client.set_process_callback
    def process(frames):
        start = run.cycle()
        for offset, data in inport.incoming_midi_events():
            run.rows.append({"frameTime": start + offset, "bytes": list(bytes(data))})
        if audioport is not None:
            buffer = memoryview(audioport.get_buffer()).cast("f")
            for offset in range(frames):
                if buffer[offset] != 0:
                    run.rows.append({"frameTime": start + offset, "sample": buffer[offset]})

    client.activate()
    if port != "-":
        client.connect(port, "probe_midi:in")
    print("recording", flush=True)
    run.finish(path)


def send(port, specs):
    client = jack.Client("probe_send", no_start_server=True)
    outport = client.midi_outports.register("out")
    events = []
    for spec in specs:
        frame, data = spec.split(":")
        events.append((int(frame), bytes(int(byte, 16) for byte in data.split(","))))
    go = threading.Event()
    done = threading.Event()
    state = {"start": None, "next": 0, "sent": []}

    @client.set_process_callback
    def process(frames):
        outport.clear_buffer()
        now = client.last_frame_time
        if state["start"] is None:
            if go.is_set():
                state["start"] = now + frames
            return
        while state["next"] < len(events):
            frame, data = events[state["next"]]
            at = state["start"] + frame
            if at >= now + frames:
                break
            outport.write_midi_event(max(0, at - now), data)
            state["sent"].append(max(at, now))
            state["next"] += 1
        if state["next"] == len(events):
            done.set()

    client.activate()
    client.connect("probe_send:out", port)
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "go":
            break
    go.set()
    done.wait(60)
    for time_sent in state["sent"]:
        print(f"sent {time_sent}", flush=True)
    client.deactivate()
    client.close()


def state():
    client = jack.Client("probe_state", no_start_server=True)
    transport = client.transport_state
    print({jack.ROLLING: "rolling", jack.STOPPED: "stopped"}.get(transport, str(transport)), flush=True)
    client.close()


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "record":
        record(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif command == "master":
        master(Fraction(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif command == "read":
        read(int(sys.argv[2]), sys.argv[3], sys.argv[4:])
    elif command == "midi":
        midi(sys.argv[2], int(sys.argv[3]), sys.argv[4], audio=sys.argv[5:] == ["audio"])
    elif command == "send":
        send(sys.argv[2], sys.argv[3:])
    elif command == "state":
        state()
    elif command == "claim":
        claim()
    else:
        sys.exit(64)
