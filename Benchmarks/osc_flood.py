#!/usr/bin/python3
"""OSC under a flood: one row of a Markdown table for a server already listening.

    osc_flood.py NAME PORT PID SECONDS

Four sockets send /klick/ping as fast as they can for SECONDS to 127.0.0.1:PORT
(klick's message, so klick and our metronome are measured alike), each with a
malformed packet every tenth; a fifth socket pings every 50 ms and times each
pong (the round trip a client sees while the flood lasts). Before the flood the
same fifth socket times 20 pings alone. Prints: messages sent, pongs back,
pongs a second, the round trip alone and under the flood (median and most, in
ms), and the CPU the server (process PID) used during the flood, in % of a core.
python-osc builds the packets; nothing of the server's code is used.
"""
import os
import select
import socket
import statistics
import sys
import time

from pythonosc.osc_message_builder import OscMessageBuilder

PING = OscMessageBuilder(address="/klick/ping").build().dgram
MALFORMED = b"/klick/ping\0,f\0\0\x01"


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def round_trip(sock, port, timeout=1.0):
    """Milliseconds from a ping to its pong on `sock`; None if none came within `timeout`."""
    while select.select([sock], [], [], 0)[0]:
        sock.recv(65536)
    start = time.monotonic()
    sock.sendto(PING, ("127.0.0.1", port))
    while True:
        left = timeout - (time.monotonic() - start)
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            return None
        if sock.recv(65536).startswith(b"/klick/pong"):
            return (time.monotonic() - start) * 1000


def drain(sock):
    """How many packets were waiting on non-blocking `sock`, read and dropped."""
    count = 0
    try:
        while True:
            sock.recv(65536)
            count += 1
    except BlockingIOError:
        return count


def main():
    name, port, pid, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    alone = [rtt for rtt in (round_trip(probe, port) for _ in range(20)) if rtt is not None]
    senders = []
    for _ in range(4):
        sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sender.bind(("127.0.0.1", 0))
        sender.setblocking(False)
        senders.append(sender)
    sent = pongs = 0
    under = []
    cpu_before = cpu_seconds(pid)
    start = time.monotonic()
    next_probe = start
    while time.monotonic() - start < seconds:
        for sender in senders:
            try:
                sender.sendto(MALFORMED if sent % 10 == 9 else PING, ("127.0.0.1", port))
                sent += 1
            except BlockingIOError:
                pass
            pongs += drain(sender)
        if time.monotonic() >= next_probe:
            rtt = round_trip(probe, port, timeout=0.2)
            under.append(rtt if rtt is not None else float("inf"))
            next_probe += 0.05
    elapsed = time.monotonic() - start
    cpu = (cpu_seconds(pid) - cpu_before) / elapsed * 100
    pongs += sum(drain(sender) for sender in senders)
    answered = [rtt for rtt in under if rtt != float("inf")]
    lost = len(under) - len(answered)

    def ms(values, pick):
        return f"{pick(values):.2f}" if values else "none"

    print(f"| {name} | {sent} | {pongs} | {pongs / elapsed:.0f} | {ms(alone, statistics.median)} | "
          f"{ms(answered, statistics.median)}, {ms(answered, max)} ({lost} of {len(under)} unanswered) | {cpu:.0f} % |", flush=True)


if __name__ == "__main__":
    main()
