#!/usr/bin/python3
"""MIDI clock placement: the metronome beside jack_midi_clock, on one JACK server.

    midi_clock.py METRONOME PROBE

Run by scripts/benchmark-midi-clock with JACK_DEFAULT_SERVER set to a running
jackd (dummy driver, 48 kHz). PROBE is Tests/Tools/jack_transport_probe.py:
its timebase master publishes an exact grid (in 4/4, then 133.7 bpm from the
bar line after 6 s), its MIDI recorder notes each event's frame time. Two rounds: from 120 bpm (the
change's bar line inside a cycle) and from 125 bpm (bars of 90 cycles: on a
cycle's first frame).
Each source in turn follows that master from transport frame 0:
  - jack_midi_clock (Debian's jack-midi-clock), and
  - `metronome --jack --transport follow --midi-clock`,
then the metronome alone on a tempo map of the same change (`2 120` ...). Every
clock's ideal frame is the master's (or the map's) exact grid at k/24
quarter notes from the first clock; printed per source: clocks sent against
those due, the largest distance from the ideal frame before and after the
change, and the spread of the intervals, in frames and ms, as Markdown.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

RATE = 48_000
SECONDS = 14
CHANGE_AFTER = 6
SECOND_TEXT = "133.7"
SECOND = Fraction(SECOND_TEXT)


def record(probe, path, seconds):
    recorder = subprocess.Popen([sys.executable, probe, "midi", "-", str(seconds), path],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert recorder.stdout.readline().strip() == "recording"
    return recorder


def clocks(path):
    frames = []
    for line in open(path):
        row = json.loads(line)
        if row.get("bytes") == [0xF8]:
            frames.append(row["frameTime"])
    return frames


def master(probe, first):
    process = subprocess.Popen([sys.executable, probe, "master", str(first), "4", "round"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    assert process.stdout.readline().strip() == "master"
    grids = [process.stdout.readline().split()]

    def command(line):
        process.stdin.write(line + "\n")
        while True:
            reply = process.stdout.readline().strip()
            if reply.startswith("grid"):
                grids.append(reply.split())
            if reply == f"did {line}":
                return
    return process, command, grids


def following(probe, path, source, first):
    """Plays the master's transport from 0 with `source` (a command) following it; returns the change's bar line beat."""
    process, command, grids = master(probe, first)
    command("locate 0")
    recorder = record(probe, path, SECONDS)
    follower = subprocess.Popen(source, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    command("play")
    time.sleep(CHANGE_AFTER)
    command(f"tempo {SECOND_TEXT}")
    recorder.wait()
    command("stop")
    follower.terminate()
    follower.wait()
    process.stdin.write("quit\n")
    process.stdin.flush()
    # The stretch the change started: "grid FRAME BEAT BPM BEATS", read once the master has quit.
    rest = process.communicate()[0]
    for line in rest.splitlines():
        if line.startswith("grid"):
            grids.append(line.split())
    changed = [g for g in grids if Fraction(g[3]) == SECOND]
    return Fraction(changed[0][2]) if changed else None


def ideal(change_beat, first):
    """The frame of clock k from the first: 24 a quarter, from `first` bpm to SECOND at `change_beat` quarters."""
    first_tick = Fraction(60 * RATE) / (24 * first)
    second_tick = Fraction(60 * RATE) / (24 * SECOND)
    change_tick = change_beat * 24

    def at(k):
        if k <= change_tick:
            return first_tick * k
        return first_tick * change_tick + second_tick * (k - change_tick)
    return at


def summary(name, heard, change_beat, first):
    if not heard:
        return f"| {name} | 0 | – | – | – | – |"
    at = ideal(change_beat, first)
    origin = heard[0]
    change_tick = int(change_beat * 24)
    # Each clock matched to the nearest due one (a dropped clock shows as a gap, not a shift of all after it).
    due = []
    k = 0
    for frame in heard:
        position = frame - origin
        while at(k + 1) <= position + (at(k + 1) - at(k)) / 2:
            k += 1
        due.append(k)
        k += 1
    offsets = [frame - origin - at(k) for frame, k in zip(heard, due)]
    before = [abs(o) for o, k in zip(offsets, due) if k < change_tick]
    after = [abs(o) for o, k in zip(offsets, due) if k >= change_tick]
    expected = 0
    while at(expected) <= heard[-1] - origin + Fraction(1, 2):
        expected += 1
    intervals = [b - a for a, b in zip(heard, heard[1:])]
    # A clock left out: an interval half again as long as the longest due (jack_midi_clock's at a change on a cycle boundary).
    longest = max(at(k + 1) - at(k) for k in range(expected))
    gaps = sum(1 for interval in intervals if interval > longest * Fraction(3, 2))
    worst_after = float(max(after)) if after else 0.0
    return (f"| {name} | {len(heard)} of {expected} | {float(max(before)):.1f} ({float(max(before)) / RATE * 1000:.2f} ms) | "
            f"{worst_after:.1f} ({worst_after / RATE * 1000:.2f} ms) | {min(intervals)}–{max(intervals)} | {gaps} |")


def main():
    metronome, probe = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp()
    rows = []
    # 120 bpm: the bar line after 6 s (frame 288000) inside a cycle; 125 bpm: bars of 90 cycles, so on a cycle's first frame.
    for first, where in [(120, "within a cycle"), (125, "on a cycle boundary")]:
        path = os.path.join(work, "jmc.jsonl")
        change = following(probe, path, ["jack_midi_clock", "probe_midi:in"], first)
        rows.append(summary(f"jack_midi_clock, following; change {where}", clocks(path), change, first))
        path = os.path.join(work, "follow.jsonl")
        change = following(probe, path, [metronome, "--jack", "--no-connect", "--no-pendulum", "--quiet", "--transport", "follow",
                                         "--midi-clock", "--midi-connect", "probe_midi:in"], first)
        rows.append(summary(f"metronome --transport follow --midi-clock; change {where}", clocks(path), change, first))
    # Alone, on a map of the same change after 4 bars.
    mapfile = os.path.join(work, "map.txt")
    with open(mapfile, "w") as f:
        f.write(f"4 120\n4 {SECOND_TEXT}\n")
    path = os.path.join(work, "map.jsonl")
    recorder = record(probe, path, 10)
    subprocess.run([metronome, "--jack", "--no-connect", "--no-pendulum", "--quiet", "--midi-clock", "--midi-connect", "probe_midi:in",
                    "--tempo-map", mapfile], stdin=subprocess.DEVNULL, check=True)
    recorder.wait()
    rows.append(summary("metronome --tempo-map --midi-clock (alone)", clocks(path), Fraction(16), 120))
    print("| Source | Clocks sent of those due | Farthest from its frame, before the change | After it | Intervals (frames) | Clocks left out (gaps) |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
