/* A JACK recorder that also says when, on the monotonic clock, each cycle was.
 *
 *   jack_clocked_rec PORT SECONDS FILE TIMES
 *
 * Records PORT as jack_stamped_rec does (frame_stamped.h: raw 32-bit floats,
 * each cycle at its JACK frame time counted from the first), and writes TIMES,
 * one line a cycle: its first frame in the file, then JACK's time of that
 * frame and of the next cycle's (jack_get_cycle_times, in microseconds), then
 * CLOCK_MONOTONIC less JACK's clock (jack_get_time), both read in that cycle,
 * in nanoseconds: jackd2's clock is not CLOCK_MONOTONIC (it runs apart from it
 * by hundreds of milliseconds on a machine whose clock NTP slews). A frame of
 * the file is then an instant on CLOCK_MONOTONIC, by the line before it: the
 * beat feed's test puts each recorded click on the clock its timetags are
 * on. Prints "recording" once connected.
 */
#include "frame_stamped.h"
#include <jack/jack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct cycle { uint64_t at; jack_time_t start, next; int64_t monotonic_less_jack; };

static jack_client_t *client;
static jack_port_t *input;
static struct frame_stamped recording;
static struct cycle *cycles;
static uint64_t most_cycles;
static atomic_uint_fast64_t cycles_written;

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    jack_nframes_t first;
    jack_time_t start, next;
    float period;
    uint64_t at = frame_stamped_port(&recording, client, input, frames);
    uint64_t index = atomic_load(&cycles_written);
    if (index < most_cycles && jack_get_cycle_times(client, &first, &start, &next, &period) == 0) {
        struct timespec monotonic;
        jack_time_t jack_now = jack_get_time();
        clock_gettime(CLOCK_MONOTONIC, &monotonic);
        int64_t offset = (int64_t)monotonic.tv_sec * 1000000000LL + monotonic.tv_nsec - (int64_t)jack_now * 1000LL;
        cycles[index] = (struct cycle){ at, start, next, offset };
        atomic_store(&cycles_written, index + 1);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: jack_clocked_rec PORT SECONDS FILE TIMES\n");
        return 64;
    }
    jack_status_t status;
    client = jack_client_open("clocked", JackNoStartServer, &status);
    if (!client) {
        fprintf(stderr, "jack_clocked_rec: no JACK server (status 0x%x)\n", status);
        return 69;
    }
    int recorded = frame_stamped_init(&recording, client, atoi(argv[2]), 1);
    most_cycles = recording.capacity / 16 + 16;
    cycles = calloc(most_cycles, sizeof(struct cycle));
    input = jack_port_register(client, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    if (!recorded || !cycles || !input) return 70;
    jack_set_process_callback(client, process, NULL);
    if (jack_activate(client) != 0 || jack_connect(client, argv[1], "clocked:in") != 0) {
        fprintf(stderr, "jack_clocked_rec: cannot connect %s\n", argv[1]);
        return 69;
    }
    frame_stamped_run(&recording, client);
    FILE *file = fopen(argv[3], "wb");
    if (!file || fwrite(recording.samples, sizeof(float), recording.capacity, file) != recording.capacity || fclose(file) != 0) {
        fprintf(stderr, "jack_clocked_rec: cannot write %s\n", argv[3]);
        return 73;
    }
    FILE *times = fopen(argv[4], "w");
    if (!times) return 73;
    uint64_t written = atomic_load(&cycles_written);
    for (uint64_t index = 0; index < written; index++)
        fprintf(times, "%llu %llu %llu %lld\n", (unsigned long long)cycles[index].at, (unsigned long long)cycles[index].start,
                (unsigned long long)cycles[index].next, (long long)cycles[index].monotonic_less_jack);
    return fclose(times) == 0 ? 0 : 73;
}
