#!/usr/bin/python3
"""An OSC peer for the tests, on python-osc (PyPI), an implementation independent of liblo.

    osc_probe.py send PORT PATH [ARG...]
    osc_probe.py ask PORT PATH [ARG...] [--reply-to | --reply-to-port]

ARG is TYPE:VALUE: i (int32), h (int64), f (float32), d (double), s (string).
`send` sends the message to 127.0.0.1:PORT over UDP and leaves. `ask` sends it
and waits up to 5 s for one message back: on the socket it sent from, or with
--reply-to on a second socket whose URL (osc.udp://127.0.0.1:P/) it adds as a
last string argument, as klick's return addresses are given (--reply-to-port:
its port alone, as klick's own clients give it). It prints the
message back as one JSON line [path, [[type, value], ...], "sender" or
"reply-to"], or exits 1 on silence.
"""
import json
import socket
import sys

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


def main():
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
    reply = OscMessage(data)
    types = reply.dgram[len(reply.address) + 1:].split(b",", 1)[1].split(b"\0", 1)[0].decode()
    print(json.dumps([reply.address, [[kind, value] for kind, value in zip(types, reply.params)],
                      "reply-to" if reply_to else "sender"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
