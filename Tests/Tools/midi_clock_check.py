#!/usr/bin/python3
"""Checks a recorded MIDI clock against a tempo map, independently of the metronome.

    midi_clock_check.py ROWS RATE ENTRIES

ROWS is the JSON lines `jack_transport_probe.py midi` wrote (frameTime and
bytes). ENTRIES is a JSON list of [beats, note value, tempo] or [beats, note
value, from, to] (a ramp), in quarter notes a minute as the map has them, the
count-in first. mido reads the bytes; Python's Fraction places every clock a
constant tempo makes (a tick is 60 R / 24 q frames, whatever the meter), and
the closed form of a linear ramp in tempo places a ramp's beats, each of
whose 96/d ticks split it evenly. Positions are counted from the first clock.
Prints one JSON object: the ticks, the frames that differ from the
expected ones, and every message that is not a clock with its frame.
"""
import json
import math
import sys
from fractions import Fraction

import mido


def nearest(position):
    """The frame a position falls on: floor(x + 1/2), as the grid rounds."""
    if isinstance(position, Fraction):
        return math.floor(position + Fraction(1, 2))
    return math.floor(position + 0.5)


def expected_ticks(entries, rate):
    ticks, exact = [], []
    position = Fraction(0)
    for entry in entries:
        beats, note = entry[0], entry[1]
        per_beat = 96 // note
        if len(entry) == 3:
            tick = Fraction(60 * rate) / (24 * Fraction(str(entry[2])))
            for k in range(beats * per_beat):
                ticks.append(nearest(position + tick * k))
                exact.append(isinstance(position, Fraction))
            position += tick * beats * per_beat
        else:
            first, last = float(entry[2]), float(entry[3])
            start = float(position)

            def at(beat):
                seconds = 240 / note * beats / (last - first) * math.log1p((last - first) * beat / (beats * first))
                return start + seconds * rate

            for beat in range(beats):
                begin, end = at(beat), at(beat + 1)
                for j in range(per_beat):
                    ticks.append(nearest(begin + (end - begin) * j / per_beat))
                    exact.append(False)
            position = at(beats)
    return ticks, exact


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    rate = int(sys.argv[2])
    entries = json.loads(sys.argv[3])
    events = []
    for row in rows:
        if "bytes" in row:
            events.append((row["frameTime"], mido.Message.from_bytes(row["bytes"])))
    clocks = [frame for frame, message in events if message.type == "clock"]
    origin = clocks[0] if clocks else 0
    ticks, exact = expected_ticks(entries, rate)
    heard = [frame - origin for frame in clocks]
    differing = [[index, heard[index], ticks[index]] for index in range(min(len(heard), len(ticks))) if heard[index] != ticks[index]]
    others = []
    for frame, message in events:
        if message.type == "clock":
            continue
        described = {"frame": frame - origin, "type": message.type}
        if message.type == "songpos":
            described["pos"] = message.pos
        others.append(described)
    print(json.dumps({
        "clocks": len(heard),
        "expected": len(ticks),
        "differingExact": [d for d in differing if exact[d[0]]],
        "differingByMore": [d for d in differing if abs(d[1] - d[2]) > 1],
        "differing": len(differing),
        "expectedFrames": ticks,
        "others": others,
    }))


if __name__ == "__main__":
    main()
