#!/usr/bin/python3
"""From an OSC message to the click it brings: one row of a Markdown table.

    osc_latency.py NAME OSC_PORT JACK_PORT TRIALS

A JACK client of its own (python3-jack-client) listens on an input that
JACK_PORT (the server's output, already playing; a regular expression, as
ALSA's jack plugin names its ports after the process) is connected to. Each trial
sends /klick/metro/stop, waits 400 ms of silence, reads JACK's frame time
(jack_frame_time: the frame being processed now), sends /klick/metro/start
and takes the first nonzero sample that comes on the input after it: the
frames between the two are how long the message took to become sound in the
graph; the port's playback latency (the same for both servers) comes after.
Prints: trials, the median, the fewest and the most milliseconds, and how
many trials brought no click within a second. klick's message, so klick and
our metronome are measured alike; python-osc builds the packets.
"""
import socket
import statistics
import sys
import threading
import time

import jack
from pythonosc.osc_message_builder import OscMessageBuilder


def message(path):
    return OscMessageBuilder(address=path).build().dgram


def main():
    name, osc_port, source, trials = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    client = jack.Client("osc-latency", no_start_server=True)
    inlet = client.inports.register("in")
    armed = threading.Event()
    heard = []
    sent = [0]
    arrived = threading.Event()

    @client.set_process_callback
    def process(frames):
        if not armed.is_set():
            return
        samples = memoryview(inlet.get_buffer()).cast("f")
        for index in range(frames):
            # Not before the start was sent: a cycle under way then may still carry the tail of a sound.
            if samples[index] != 0 and (client.last_frame_time + index - sent[0]) % 2**32 < 2**31:
                heard.append(client.last_frame_time + index)
                armed.clear()
                arrived.set()
                return

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rate = client.samplerate
    with client:
        client.connect(client.get_ports(source, is_audio=True, is_output=True)[0], inlet)
        latencies, silent = [], 0
        for _ in range(trials):
            sock.sendto(message("/klick/metro/stop"), ("127.0.0.1", osc_port))
            time.sleep(0.4)
            arrived.clear()
            heard.clear()
            sent[0] = client.frame_time
            armed.set()
            sock.sendto(message("/klick/metro/start"), ("127.0.0.1", osc_port))
            if not arrived.wait(1.0):
                armed.clear()
                silent += 1
                continue
            latencies.append((heard[0] - sent[0]) % 2**32 * 1000 / rate)
            time.sleep(0.2)
    if not latencies:
        print(f"| {name} | {trials} | – | – | – | {silent} |")
        return 1
    print(f"| {name} | {trials} | {statistics.median(latencies):.2f} | {min(latencies):.2f} | {max(latencies):.2f} | {silent} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
