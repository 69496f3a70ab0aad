#!/usr/bin/python3
"""From a MIDI message to the click it changes: `metronome --jack --midi-in`.

    midi_tap.py METRONOME PROBE PERIOD

Run by scripts/benchmark-midi-tap with JACK_DEFAULT_SERVER set to a running
jackd (dummy driver, 48 kHz, PERIOD frames). PROBE is
Tests/Tools/jack_transport_probe.py: its sender writes each message at a
chosen frame, its recorder notes every click the metronome's audio port plays
at its frame time. The metronome plays 120 bpm; a sequencer's Stop, then its
Start 30 000 frames later, 16 times, each Start 97 frames further into its
cycle than the last (so every phase of a cycle is met). Start plays a new bar
at once: the latency of each is the frame of the first click after it less the
frame the Start came in at. Printed as a Markdown row: the least, the median
and the most, in frames and ms, beside one period (a client that answers in
the cycle after the one the message came in).
"""
import json
import os
import subprocess
import sys
import tempfile

RATE = 48_000
ROUNDS = 16


def main():
    metronome, probe, period = sys.argv[1], sys.argv[2], int(sys.argv[3])
    work = tempfile.mkdtemp()
    path = os.path.join(work, "clicks.jsonl")
    events = []
    for round_ in range(ROUNDS):
        at = round_ * 60_000
        events += [f"{at + 10_000}:fc", f"{at + 40_000 + round_ * 97}:fa"]
    seconds = ROUNDS * 60_000 // RATE + 3
    recorder = subprocess.Popen([sys.executable, probe, "midi", "-", str(seconds), path, "audio"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert recorder.stdout.readline().strip() == "recording"
    player = subprocess.Popen([metronome, "--jack", "--connect", "probe_midi:audio", "--no-pendulum", "--quiet",
                               "--bpm", "120", "--midi-in"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    subprocess.run(["jack_wait", "-w", "-t", "10"], check=True, stdout=subprocess.DEVNULL)
    while subprocess.run(["jack_lsp", "metronome:midi_in"], capture_output=True, text=True).stdout.strip() != "metronome:midi_in":
        pass
    sender = subprocess.Popen([sys.executable, probe, "send", "metronome:midi_in"] + events, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert sender.stdout.readline().strip() == "ready"
    sender.stdin.write("go\n")
    sender.stdin.close()
    sent = [int(line.split()[1]) for line in sender.stdout if line.startswith("sent ")]
    sender.wait()
    recorder.wait()
    player.terminate()
    player.wait()
    clicks = [row["frameTime"] for row in map(json.loads, open(path)) if "sample" in row]
    starts = sent[1::2]
    latencies = []
    for start in starts:
        after = [click for click in clicks if click >= start]
        if after:
            latencies.append(after[0] - start)
    latencies.sort()
    if not latencies:
        print(f"| {period} | no click after any Start | | | |")
        return

    def shown(frames):
        return f"{frames} ({frames / RATE * 1000:.1f} ms)"
    print(f"| {period} | {len(latencies)} of {len(starts)} | {shown(latencies[0])} | {shown(latencies[len(latencies) // 2])} | "
          f"{shown(latencies[-1])} | {shown(period)} |")


if __name__ == "__main__":
    main()
