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
static float *recording;
static uint64_t capacity; /* frames */
static atomic_int started;
static jack_nframes_t first_frame;
static atomic_uint_fast64_t end_of_recording;

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    jack_nframes_t now = jack_last_frame_time(client);
    if (!atomic_load(&started)) {
        first_frame = now;
        atomic_store(&started, 1);
    }
    uint64_t at = (uint32_t)(now - first_frame);
    for (int c = 0; c < channels; c++) {
        const float *samples = jack_port_get_buffer(inputs[c], frames);
        for (jack_nframes_t i = 0; i < frames && at + i < capacity; i++) recording[(at + i) * channels + c] = samples[i];
    }
    uint64_t end = at + frames;
    if (end > atomic_load(&end_of_recording)) atomic_store(&end_of_recording, end);
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
    capacity = (uint64_t)(seconds * jack_get_sample_rate(client));
    recording = calloc(capacity * channels, sizeof(float));
    for (int c = 0; c < channels; c++) {
        char name[16];
        snprintf(name, sizeof name, "in_%d", c + 1);
        inputs[c] = jack_port_register(client, name, JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    }
    jack_set_process_callback(client, process, NULL);
    if (!recording || jack_activate(client) != 0) return 70;
    for (int c = 0; c < channels; c++) {
        if (strcmp(argv[3 + c], "-") != 0 && jack_connect(client, argv[3 + c], jack_port_name(inputs[c])) != 0) {
            fprintf(stderr, "jack_multi_rec: cannot connect %s\n", argv[3 + c]);
            return 69;
        }
    }
    printf("recording\n");
    fflush(stdout);
    while (atomic_load(&end_of_recording) < capacity) usleep(10000);
    jack_deactivate(client);
    jack_client_close(client);
    FILE *file = fopen(argv[2], "wb");
    if (!file || fwrite(recording, sizeof(float) * channels, capacity, file) != capacity || fclose(file) != 0) {
        fprintf(stderr, "jack_multi_rec: cannot write %s\n", argv[2]);
        return 73;
    }
    return 0;
}
