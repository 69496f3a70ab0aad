/* A JACK recorder that places every cycle by JACK's own frame time.
 *
 *   jack_stamped_rec PORT SECONDS FILE [PIDFILE CLICK STALL_MS [EVERY COUNT]]
 *
 * Connects its input to PORT and records SECONDS of JACK time into FILE as
 * raw 32-bit float samples at the server's rate. Each cycle is written at
 * its frame time (jack_last_frame_time) counted from the first cycle, so a
 * cycle the server skipped (a client that did not finish in time) is a
 * stretch of silence in the file rather than missing from it: the file is
 * what the server's clock heard, not what the clients managed to produce.
 * Used by the loopback tests; built by them with the Swift toolchain's
 * clang. Prints "recording" on stdout once connected.
 *
 * With PIDFILE, CLICK and STALL_MS it also makes the fault: 100 ms (of JACK
 * time) after it has recorded click number CLICK (counted from 0: a nonzero
 * sample after a zero), it stops the process whose id PIDFILE holds with
 * SIGSTOP for STALL_MS milliseconds, then continues it with SIGCONT, and
 * prints "stalled AT FOR" (AT the frame of the stop, in the file's frames;
 * FOR the microseconds between the two signals, on the monotonic clock:
 * the sleep between them goes to an absolute deadline, so a signal that
 * interrupts it cannot shorten the stall).
 * With EVERY and COUNT it does so again after every EVERY further clicks it
 * records, COUNT times in all.
 */
#include "frame_stamped.h"
#include <jack/jack.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static jack_client_t *client;
static jack_port_t *input;
static struct frame_stamped recording;

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    frame_stamped_port(&recording, client, input, frames);
    return 0;
}

/* Stops the process in PIDFILE for `milliseconds`, once the file's frame `at` has come. */
static void stall(const char *pidfile, uint64_t at, int milliseconds) {
    while (frame_stamped_now(&recording, client) < at) usleep(1000);
    FILE *file = fopen(pidfile, "r");
    int pid = 0;
    if (!file || fscanf(file, "%d", &pid) != 1 || pid <= 0) {
        fprintf(stderr, "jack_stamped_rec: no process id in %s\n", pidfile);
        exit(66);
    }
    fclose(file);
    struct timespec stopped, deadline, continued;
    kill(pid, SIGSTOP);
    clock_gettime(CLOCK_MONOTONIC, &stopped);
    deadline = stopped;
    deadline.tv_sec += milliseconds / 1000;
    deadline.tv_nsec += (long)(milliseconds % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) { deadline.tv_sec += 1; deadline.tv_nsec -= 1000000000L; }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) != 0) {}
    clock_gettime(CLOCK_MONOTONIC, &continued);
    kill(pid, SIGCONT);
    long long microseconds = (continued.tv_sec - stopped.tv_sec) * 1000000LL + (continued.tv_nsec - stopped.tv_nsec) / 1000;
    printf("stalled %llu %lld\n", (unsigned long long)at, microseconds);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 7 && argc != 9) {
        fprintf(stderr, "usage: jack_stamped_rec PORT SECONDS FILE [PIDFILE CLICK STALL_MS [EVERY COUNT]]\n");
        return 64;
    }
    long stall_after_click = argc >= 7 ? atol(argv[5]) : -1;
    long every = argc == 9 ? atol(argv[7]) : 0, stalls_left = argc == 9 ? atol(argv[8]) : 1;
    jack_status_t status;
    client = jack_client_open("stamped", JackNoStartServer, &status);
    if (!client) {
        fprintf(stderr, "jack_stamped_rec: no JACK server (status 0x%x)\n", status);
        return 69;
    }
    int recorded = frame_stamped_init(&recording, client, atoi(argv[2]), 1);
    input = jack_port_register(client, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    if (!recorded || !input) return 70;
    jack_set_process_callback(client, process, NULL);
    if (jack_activate(client) != 0 || jack_connect(client, argv[1], "stamped:in") != 0) {
        fprintf(stderr, "jack_stamped_rec: cannot connect %s\n", argv[1]);
        return 69;
    }
    pid_t parent = getppid();
    printf("recording\n");
    fflush(stdout);
    uint64_t scanned = 1;
    long clicks = 0;
    const float *samples = recording.samples;
    while (atomic_load(&recording.end) < recording.capacity) {
        frame_stamped_end_if_orphaned(parent);
        uint64_t end = atomic_load(&recording.end);
        for (; stall_after_click >= 0 && scanned < end; scanned++) {
            if (samples[scanned] == 0 || samples[scanned - 1] != 0) continue;
            if (clicks++ == stall_after_click) {
                stall(argv[4], scanned + jack_get_sample_rate(client) / 10, atoi(argv[6]));
                stall_after_click = --stalls_left > 0 ? stall_after_click + every : -1;
            }
        }
        usleep(10000);
    }
    jack_deactivate(client);
    jack_client_close(client);
    FILE *file = fopen(argv[3], "wb");
    if (!file || fwrite(samples, sizeof(float), recording.capacity, file) != recording.capacity || fclose(file) != 0) {
        fprintf(stderr, "jack_stamped_rec: cannot write %s\n", argv[3]);
        return 73;
    }
    return 0;
}
