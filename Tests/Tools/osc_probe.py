#!/usr/bin/python3
"""An OSC peer for the tests, on python-osc (PyPI), an implementation independent of liblo.

    osc_probe.py send PORT PATH [ARG...]
    osc_probe.py ask PORT PATH [ARG...] [--reply-to | --reply-to-port]
    osc_probe.py exchange PORT COUNT MESSAGE...
    osc_probe.py feed PORT COUNT
    osc_probe.py flood PORT COUNT
    osc_probe.py tcp PORT FRAMING COUNT MESSAGE...

ARG is TYPE:VALUE: i (int32), h (int64), f (float32), d (double), s (string).
`send` sends the message to 127.0.0.1:PORT over UDP and leaves. `ask` sends it
and waits up to 5 s for one message back: on the socket it sent from, or with
--reply-to on a second socket whose URL (osc.udp://127.0.0.1:P/) it adds as a
last string argument, as klick's return addresses are given (--reply-to-port:
its port alone, as klick's own clients give it). It prints the
message back as one JSON line [path, [[type, value], ...], "sender" or
"reply-to"], or exits 1 on silence. `exchange` sends each MESSAGE (a JSON
array: PATH, then TYPE:VALUE strings) in turn from one socket, then prints
each of the first COUNT messages that come back to it as a JSON line
[path, [[type, value], ...]]; it exits 1 if fewer came within 5 s. `feed`
subscribes to the beat feed (/metronome/subscribe) and prints first
["offset", S], the wall clock less the monotonic clock in seconds, then for
each of the first COUNT bundles that come [timetag, path, arguments,
received, offset], the timetag in seconds since 1970 as python-osc reads it,
the wall clock when it came and the wall clock less the monotonic one then; exits 1 if fewer came
within 5 s. `flood` sends COUNT messages to 127.0.0.1:PORT as fast as four
sockets can, never waiting for an answer: pings, queries of both namespaces,
set_tempo with a string (refused), bundles of eight pings and malformed
packets, in turn; it prints how many it sent and exits. `tcp` connects to
127.0.0.1:PORT over TCP with python-osc's own TCP client, framing as OSC
FRAMING does (1.0: each packet after its size; 1.1: SLIP), sends each
MESSAGE on it in turn (a PATH beginning "udp:" goes over UDP instead; a
message ["raw:HEX"] is those bytes on the connection, as they are), then
prints the first COUNT messages that come back on the connection as
`exchange` does; it exits 1 if fewer came within 5 s.
"""
import json
import socket
import sys
import time

from pythonosc.osc_bundle import OscBundle
from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder

TYPES = {"i": OscMessageBuilder.ARG_TYPE_INT, "h": OscMessageBuilder.ARG_TYPE_INT64, "f": OscMessageBuilder.ARG_TYPE_FLOAT,
         "d": OscMessageBuilder.ARG_TYPE_DOUBLE, "s": OscMessageBuilder.ARG_TYPE_STRING}


def message(path, arguments):
    builder = OscMessageBuilder(address=path)
    for argument in arguments:
        kind, value = argument.split(":", 1)
        converted = int(value) if kind in "ih" else float(value) if kind in "fd" else value
        builder.add_arg(converted, TYPES[kind])
    return builder.build().dgram


def decoded(data):
    reply = OscMessage(data)
    types = reply.dgram[len(reply.address) + 1:].split(b",", 1)[1].split(b"\0", 1)[0].decode()
    return reply.address, [[kind, value] for kind, value in zip(types, reply.params)]


def packets(sock, count):
    """The first `count` packets that come to `sock` within 5 s, as they come; stops early on silence."""
    deadline = time.monotonic() + 5
    for _ in range(count):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        sock.settimeout(remaining)
        try:
            data, _ = sock.recvfrom(65536)
        except socket.timeout:
            return
        yield data


def exchange(port, count, messages):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    for text in messages:
        path, *arguments = json.loads(text)
        sock.sendto(message(path, arguments), ("127.0.0.1", port))
    received = 0
    for data in packets(sock, count):
        print(json.dumps(list(decoded(data))), flush=True)
        received += 1
    return 0 if received == count else 1


def feed(port, count):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    offset = time.clock_gettime(time.CLOCK_REALTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)
    print(json.dumps(["offset", offset]), flush=True)
    sock.sendto(message("/metronome/subscribe", []), ("127.0.0.1", port))
    received = 0
    for data in packets(sock, count):
        arrived = time.clock_gettime(time.CLOCK_REALTIME)
        # The wall clock less the monotonic one, again at each bundle: the wall clock may be slewed meanwhile.
        offset = arrived - time.clock_gettime(time.CLOCK_MONOTONIC)
        bundle = OscBundle(data)
        for content in bundle:
            print(json.dumps([bundle.timestamp, content.address, list(content.params), arrived, offset]), flush=True)
        received += 1
    return 0 if received == count else 1


def flood(port, count):
    ping = message("/klick/ping", [])
    kinds = [ping, message("/klick/query", []), message("/metronome/query", []), message("/klick/simple/set_tempo", ["s:fast"]),
             b"#bundle\0" + bytes(8) + b"".join(len(ping).to_bytes(4, "big") + ping for _ in range(8)),
             b"/klick/ping\0,f\0\0\x01", b"\xff" * 7]
    counts = [1, 1, 1, 1, 8, 1, 1]
    senders = []
    for _ in range(4):
        sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sender.bind(("127.0.0.1", 0))
        senders.append(sender)
    sent = packets_sent = 0
    while sent < count:
        kind = packets_sent % len(kinds)
        senders[packets_sent % len(senders)].sendto(kinds[kind], ("127.0.0.1", port))
        sent += counts[kind]
        packets_sent += 1
    print(json.dumps({"messages": sent, "packets": packets_sent}), flush=True)
    return 0


def tcp(port, framing, count, messages):
    from pythonosc import tcp_client
    client = tcp_client.TCPClient("127.0.0.1", port, mode=framing, timeout=5)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for text in messages:
        path, *arguments = json.loads(text)
        if path.startswith("raw:"):
            client.socket.sendall(bytes.fromhex(path[4:]))
        elif path.startswith("udp:"):
            udp.sendto(message(path[4:], arguments), ("127.0.0.1", port))
        else:
            client.send(OscMessage(message(path, arguments)))
    deadline = time.monotonic() + 5
    received = 0
    while received < count and time.monotonic() < deadline:
        for data in client.receive(timeout=max(0.01, deadline - time.monotonic())):
            if not data:
                continue
            print(json.dumps(list(decoded(data))), flush=True)
            received += 1
    return 0 if received >= count else 1


def main():
    if sys.argv[1] == "tcp":
        return tcp(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5:])
    if sys.argv[1] == "flood":
        return flood(int(sys.argv[2]), int(sys.argv[3]))
    if sys.argv[1] == "feed":
        return feed(int(sys.argv[2]), int(sys.argv[3]))
    if sys.argv[1] == "exchange":
        return exchange(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
    mode, port, path, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    reply_to = "--reply-to" in rest or "--reply-to-port" in rest
    arguments = [argument for argument in rest if argument not in ("--reply-to", "--reply-to-port")]
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender.bind(("127.0.0.1", 0))
    listener = sender
    if reply_to:
        listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        listener.bind(("127.0.0.1", 0))
        listening = listener.getsockname()[1]
        arguments.append(f"s:{listening}" if "--reply-to-port" in rest else f"s:osc.udp://127.0.0.1:{listening}/")
    sender.sendto(message(path, arguments), ("127.0.0.1", port))
    if mode == "send":
        return 0
    listener.settimeout(5)
    try:
        data, _ = listener.recvfrom(65536)
    except socket.timeout:
        return 1
    address, values = decoded(data)
    print(json.dumps([address, values, "reply-to" if reply_to else "sender"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
