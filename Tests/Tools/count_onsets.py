#!/usr/bin/python3
"""The spoken count's onsets in a rendered file, measured apart from the metronome.

    count_onsets.py FILE.wav SPOKEN UNSPOKEN

FILE.wav: a 16-bit PCM WAV (mono) rendered with --count voice and silent
clicks. SPOKEN: a JSON list of the frames where a word is due, sorted;
UNSPOKEN: a JSON list of the frames where a beat falls that is not spoken.
Each frame owns the span from the midpoint with the frame before it to the
midpoint with the frame after it (the first and the last, as wide on their
open side as on the other). In each spoken span the onset is found by
the contract: the first sample at which the RMS over the millisecond ending
there (the span's silence before its start) reaches -20 dB of the span's
loudest such millisecond. Prints JSON: "offsets", each onset less its frame;
"unspoken", the loudest sample in each unspoken span.

Python's standard library only, sums of squares summed exactly as integers
(16-bit samples): no numpy on the test machine, no rounding in the sums.
"""
import json
import sys
import wave
from array import array


def main():
    path, spoken, unspoken = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
    with wave.open(path, "rb") as file:
        if file.getnchannels() != 1 or file.getsampwidth() != 2:
            sys.exit("count_onsets: a mono 16-bit WAV, please")
        rate = file.getframerate()
        samples = array("h", file.readframes(file.getnframes()))
    if sys.byteorder != "little":
        samples.byteswap()
    window = max(1, (rate + 500) // 1000)
    prefix = [0] * (len(samples) + 1)
    total = 0
    for index, sample in enumerate(samples):
        total += sample * sample
        prefix[index + 1] = total

    everything = sorted([(frame, True) for frame in spoken] + [(frame, False) for frame in unspoken])
    offsets, quiet = [], []
    for place, (frame, is_spoken) in enumerate(everything):
        # The first and the last span as wide before and after as they are on their other side.
        before = everything[place - 1][0] if place > 0 else (2 * frame - everything[1][0] if len(everything) > 1 else 0)
        after = everything[place + 1][0] if place + 1 < len(everything) else (2 * frame - everything[place - 1][0] if place > 0 else len(samples))
        low = max(0, (before + frame) // 2)
        high = min(len(samples), (frame + after) // 2)
        if not is_spoken:
            quiet.append(max((abs(s) for s in samples[low:high]), default=0) / 32768)
            continue

        def power(end):
            return prefix[end + 1] - prefix[max(low, end + 1 - window)]

        loudest = max(power(end) for end in range(low, high))
        onset = next((end for end in range(low, high) if power(end) * 100 >= loudest), None) if loudest > 0 else None
        offsets.append(None if onset is None else onset - frame)
    print(json.dumps({"rate": rate, "window": window, "offsets": offsets, "unspoken": quiet}))


if __name__ == "__main__":
    main()
