/* Presses tempo keys in a tmux pane at chosen moments of the beat and
 * records the clicks that follow, both on JACK's frame clock.
 *
 *   key-to-click SECONDS FILE PRESSES TMUX_SOCKET KEY_UP KEY_DOWN [SPAN_MS]
 *
 * A JACK client `keyclick` with an input port `in` (the metronome plays into
 * it) records up to SECONDS of JACK time into FILE (raw 32-bit floats, each
 * cycle at its jack_last_frame_time, counted from the first cycle). The
 * clicks are expected to be one nonzero sample each (impulse sounds). Once
 * three clicks are heard it presses KEY_UP and KEY_DOWN in turn, PRESSES
 * times, through `tmux -L TMUX_SOCKET send-keys`: press i comes
 * (i + 0.5) / PRESSES of a beat before a beat, so the presses sample the
 * whole beat (with SPAN_MS, of SPAN_MS instead: the last SPAN_MS before a
 * beat, finer); the next press waits until four clicks have followed.
 *
 * Prints on stdout "first F" (the JACK frame of the file's frame 0), and
 * for each press "key BEFORE AFTER NAME": jack_frame_time just before tmux
 * was started and just after it returned (the key reached the pane in
 * between). JACK's frame times wrap at 2^32; they are printed as read.
 */
#include "../Tests/Tools/frame_stamped.h"
#include <jack/jack.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static jack_client_t *client;
static jack_port_t *input;
static struct frame_stamped recording;

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    frame_stamped_port(&recording, client, input, frames);
    return 0;
}

/* The file's frame now (JACK's estimate of the frame being processed). */
static uint64_t now_frame(void) { return frame_stamped_now(&recording, client); }

static uint64_t clicks[100000];
static size_t click_count;
static uint64_t scanned = 1;

/* Takes in the clicks recorded since the last call. */
static void scan(void) {
    uint64_t end = atomic_load(&recording.end);
    for (; scanned < end && click_count < sizeof clicks / sizeof *clicks; scanned++)
        if (recording.samples[scanned] != 0 && recording.samples[scanned - 1] == 0) clicks[click_count++] = scanned;
}

static void wait_for_clicks(size_t count) {
    while (scan(), click_count < count) {
        if (atomic_load(&recording.end) >= recording.capacity) {
            fprintf(stderr, "key-to-click: the recording ended with %zu clicks\n", click_count);
            exit(65);
        }
        usleep(2000);
    }
}

int main(int argc, char **argv) {
    if (argc != 7 && argc != 8) {
        fprintf(stderr, "usage: key-to-click SECONDS FILE PRESSES TMUX_SOCKET KEY_UP KEY_DOWN [SPAN_MS]\n");
        return 64;
    }
    int presses = atoi(argv[3]);
    jack_status_t status;
    client = jack_client_open("keyclick", JackNoStartServer, &status);
    if (!client) {
        fprintf(stderr, "key-to-click: no JACK server (status 0x%x)\n", status);
        return 69;
    }
    int recorded = frame_stamped_init(&recording, client, atoi(argv[1]), 1);
    input = jack_port_register(client, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    if (!recorded || !input) return 70;
    jack_set_process_callback(client, process, NULL);
    if (jack_activate(client) != 0) return 69;
    while (!atomic_load(&recording.started)) usleep(1000);
    printf("first %u\n", recording.first_frame);
    fflush(stdout);

    wait_for_clicks(3);
    for (int i = 0; i < presses; i++) {
        uint64_t last = clicks[click_count - 1], interval = last - clicks[click_count - 2];
        double span = (double)interval;
        if (argc == 8 && atof(argv[7]) * jack_get_sample_rate(client) / 1000 < span)
            span = atof(argv[7]) * jack_get_sample_rate(client) / 1000;
        uint64_t lead = (uint64_t)((i + 0.5) / presses * span);
        /* The first beat at least 100 ms off whose press is still ahead. */
        uint64_t beat = last + interval;
        while (beat - lead < now_frame() + jack_get_sample_rate(client) / 10) beat += interval;
        uint64_t target = beat - lead;
        while (now_frame() + 48 < target) usleep(now_frame() + 2000 < target ? 1000 : 100);
        const char *key = argv[i % 2 ? 6 : 5];
        char *tmux[] = {"tmux", "-L", argv[4], "send-keys", (char *)key, NULL};
        pid_t pid;
        jack_nframes_t before = jack_frame_time(client);
        if (posix_spawnp(&pid, "tmux", NULL, NULL, tmux, environ) != 0) return 71;
        int code;
        waitpid(pid, &code, 0);
        jack_nframes_t after = jack_frame_time(client);
        printf("key %u %u %s\n", before, after, key);
        fflush(stdout);
        /* Four clicks after the press: the change has shown (the beat after the next, or the one after). */
        uint64_t pressed = (uint32_t)(after - recording.first_frame);
        for (;;) {
            scan();
            size_t since = 0;
            while (since < click_count && clicks[click_count - 1 - since] > pressed) since++;
            if (since >= 4) break;
            wait_for_clicks(click_count + 1);
        }
    }
    /* One beat more, then the file. */
    wait_for_clicks(click_count + 1);
    uint64_t frames = atomic_load(&recording.end);
    jack_deactivate(client);
    jack_client_close(client);
    FILE *file = fopen(argv[2], "wb");
    if (!file || fwrite(recording.samples, sizeof(float), frames, file) != frames || fclose(file) != 0) {
        fprintf(stderr, "key-to-click: cannot write %s\n", argv[2]);
        return 73;
    }
    return 0;
}
