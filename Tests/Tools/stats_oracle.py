#!/usr/bin/env python3
"""The figures `metronome stats --json` should print for a practice log,
computed independently with Python's json and datetime: the oracle of the
stats tests.

Usage: stats_oracle.py LOG TODAY WEEKS [SINCE|-] [SONG|-]"""
import datetime
import json
import sys

path, today, weeks = sys.argv[1], datetime.date.fromisoformat(sys.argv[2]), int(sys.argv[3])
since = None if len(sys.argv) < 5 or sys.argv[4] == "-" else datetime.date.fromisoformat(sys.argv[4])
song = None if len(sys.argv) < 6 or sys.argv[5] == "-" else sys.argv[5]

entries, skipped = [], 0
with open(path, encoding="utf-8", errors="replace") as log:
    for line in log:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            day = datetime.date.fromisoformat(record["start"][:10])
            seconds = record["playingSeconds"]
            if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds < 0:
                raise ValueError
        except (ValueError, KeyError, TypeError):
            skipped += 1
            continue
        songs = record.get("songs") or []
        pieces = songs if songs else [record.get("preset", "(no preset)")]
        entries.append((day, seconds, record.get("preset"), pieces, record.get("bpmMax"), record.get("take")))

counted = [e for e in entries if (since is None or e[0] >= since) and (song is None or song in e[3])]
first = today - datetime.timedelta(days=weeks * 7 - 1)
days = {}
for e in counted:
    if first <= e[0] <= today:
        days[e[0]] = days.get(e[0], 0) + e[1]


def totals(items):
    sums = {}
    for name, seconds in items:
        s, r = sums.get(name, (0, 0))
        sums[name] = (s + seconds, r + 1)
    return {name: {"seconds": s, "runs": r} for name, (s, r) in sums.items()}


tempos, takes = {}, {}
for day, seconds, preset, pieces, bpm, take in counted:
    if bpm is not None:
        for piece in pieces:
            tempos.setdefault(piece, {})
            tempos[piece][day] = max(tempos[piece].get(day, bpm), bpm)
        if take and "meanMs" in take and "spreadMs" in take:
            takes.setdefault(bpm, {}).setdefault(day, []).append((take["meanMs"], take["spreadMs"]))

print(json.dumps({
    "totalSeconds": sum(e[1] for e in counted),
    "runs": len(counted),
    "skipped": skipped,
    "days": [{"date": (first + datetime.timedelta(days=i)).isoformat(),
              "seconds": days.get(first + datetime.timedelta(days=i), 0)} for i in range(weeks * 7)],
    "presets": totals((e[2] or "(no preset)", e[1]) for e in counted),
    "pieces": totals((piece, e[1]) for e in counted for piece in e[3]),
    "tempos": {piece: {d.isoformat(): b for d, b in points.items()} for piece, points in tempos.items()},
    "takes": {str(float(bpm)): {d.isoformat(): {"meanMs": sum(m for m, _ in v) / len(v), "spreadMs": sum(s for _, s in v) / len(v),
                                                "takes": len(v)} for d, v in points.items()} for bpm, points in takes.items()},
}))
