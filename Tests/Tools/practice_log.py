#!/usr/bin/env python3
"""Writes a practice log for the stats tests: LINES lines over DAYS days
ending at END (YYYY-MM-DD), from a seeded generator, with presets, setlists,
inspected takes, and lines that are no practice log lines (garbage, foreign
JSON, a line cut short), as a log written over months would hold.

Usage: practice_log.py OUT LINES DAYS END SEED
Prints the number of lines that are no practice log lines."""
import datetime
import json
import random
import sys

out, lines, days, end, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
rng = random.Random(seed)
last = datetime.date.fromisoformat(end)
presets = [None, "ballad", "warm-up", "gig", "Ünïcode \"quoted\""]
setlists = [["Waltz", "Intro"], ["Blues in F"], ["Tab\tname", "Waltz"]]
bad = 0
with open(out, "w", encoding="utf-8") as log:
    for index in range(lines):
        kind = rng.random()
        if kind < 0.01:
            log.write("not json at all\n")
            bad += 1
            continue
        if kind < 0.02:
            log.write(json.dumps({"hello": "a foreign line"}) + "\n")
            bad += 1
            continue
        day = last - datetime.timedelta(days=rng.randrange(days))
        offset = rng.choice(["+00:00", "+01:00", "-05:00", "+05:30"])
        start = f"{day.isoformat()}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}{offset}"
        record = {"start": start, "end": start, "playingSeconds": round(rng.uniform(0, 3600), 3)}
        preset = rng.choice(presets)
        if preset is not None:
            record["preset"] = preset
        if rng.random() < 0.3:
            record["setlist"] = "/home/u/tonight.txt"
            record["songs"] = rng.choice(setlists)
        low = rng.randrange(40, 200)
        record["bpmMin"] = low
        record["bpmMax"] = low + rng.choice([0, 0, 5, 10.5])
        record["meter"] = rng.choice(["4/4", "3/4", "6/8"])
        if rng.random() < 0.25:
            record["take"] = {"notes": rng.randrange(100), "misses": rng.randrange(5),
                              "meanMs": round(rng.uniform(-20, 20), 3), "spreadMs": round(rng.uniform(1, 30), 3)}
        text = json.dumps(record, ensure_ascii=rng.random() < 0.5)
        if kind < 0.025:
            text = text[: len(text) // 2]
            bad += 1
        log.write(text + "\n")
print(bad)
