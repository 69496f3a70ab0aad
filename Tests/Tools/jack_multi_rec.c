/* A JACK recorder of several ports at once, every cycle placed by JACK's
 * own frame time (as jack_stamped_rec does for one port).
 *
 *   jack_multi_rec SECONDS FILE PORT...
 *
 * Registers one input per PORT (multirec:in_1, in_2, ...), connects each
 * PORT to its input (a PORT of "-" is left for a client that connects itself,
 * such as ALSA's jack plugin with playback_ports naming multirec:in_N), prints "recording" once connected, and records SECONDS
 * of JACK time from its first cycle into FILE as raw 32-bit float frames,
 * one channel per PORT, interleaved, at the server's rate. A cycle is
 * written at its frame time (jack_last_frame_time), so the channels share
 * one clock, the server's, and a skipped cycle is silence, not a shift.
 * Used by the Link tests to hear Link peers side by side; built by them
 * with the Swift toolchain's clang.
 */
#include "frame_stamped.h"
#include <jack/jack.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_PORTS = 8 };
static jack_client_t *client;
static jack_port_t *inputs[MAX_PORTS];
static int channels;
static struct frame_stamped recording;

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    uint64_t at = frame_stamped_at(&recording, client);
    for (int c = 0; c < channels; c++) frame_stamped_write(&recording, at, c, jack_port_get_buffer(inputs[c], frames), frames);
    frame_stamped_done(&recording, at, frames);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4 || argc - 3 > MAX_PORTS) {
        fprintf(stderr, "usage: jack_multi_rec SECONDS FILE PORT...\n");
        return 64;
    }
    double seconds = atof(argv[1]);
    channels = argc - 3;
    client = jack_client_open("multirec", JackNoStartServer, NULL);
    if (!client) {
        fprintf(stderr, "jack_multi_rec: no JACK server\n");
        return 69;
    }
    int recorded = frame_stamped_init(&recording, client, seconds, channels);
    for (int c = 0; c < channels; c++) {
        char name[16];
        snprintf(name, sizeof name, "in_%d", c + 1);
        inputs[c] = jack_port_register(client, name, JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    }
    jack_set_process_callback(client, process, NULL);
    if (!recorded || jack_activate(client) != 0) return 70;
    for (int c = 0; c < channels; c++) {
        if (strcmp(argv[3 + c], "-") != 0 && jack_connect(client, argv[3 + c], jack_port_name(inputs[c])) != 0) {
            fprintf(stderr, "jack_multi_rec: cannot connect %s\n", argv[3 + c]);
            return 69;
        }
    }
    frame_stamped_run(&recording, client);
    FILE *file = fopen(argv[2], "wb");
    if (!file || fwrite(recording.samples, sizeof(float) * channels, recording.capacity, file) != recording.capacity || fclose(file) != 0) {
        fprintf(stderr, "jack_multi_rec: cannot write %s\n", argv[2]);
        return 73;
    }
    return 0;
}
