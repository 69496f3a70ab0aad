/* The frame-stamped recording the JACK recorders share (jack_stamped_rec.c,
 * jack_multi_rec.c, jack_transport_rec.c, Benchmarks/key-to-click.c): each
 * cycle's input written at its JACK frame time (jack_last_frame_time)
 * counted from the first cycle, so a cycle the server skipped is silence in
 * the recording rather than missing from it. Interleaved when there are
 * several channels. Called from the process callback: no allocation, no I/O.
 */
#ifndef FRAME_STAMPED_H
#define FRAME_STAMPED_H
#include <jack/jack.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct frame_stamped {
    float *samples;          /* capacity frames of `channels` samples each */
    uint64_t capacity;
    int channels;
    atomic_int started;
    jack_nframes_t first_frame;
    atomic_uint_fast64_t end; /* the frames recorded so far, counted from the first */
};

/* Allocates `seconds` of the client's rate; 0 if it cannot. */
static inline int frame_stamped_init(struct frame_stamped *recording, jack_client_t *client, double seconds, int channels) {
    recording->capacity = (uint64_t)(seconds * jack_get_sample_rate(client));
    recording->channels = channels;
    recording->samples = calloc(recording->capacity * (uint64_t)channels + 1, sizeof(float));
    return recording->samples != NULL;
}

/* Where this cycle goes: its first frame counted from the first cycle's (the first cycle's is 0). */
static inline uint64_t frame_stamped_at(struct frame_stamped *recording, jack_client_t *client) {
    jack_nframes_t now = jack_last_frame_time(client);
    if (!atomic_load(&recording->started)) {
        recording->first_frame = now;
        atomic_store(&recording->started, 1);
    }
    return (uint32_t)(now - recording->first_frame);
}

/* Writes channel `channel` of the cycle's `frames` at `at`, as far as the recording goes. */
static inline void frame_stamped_write(struct frame_stamped *recording, uint64_t at, int channel, const float *samples, jack_nframes_t frames) {
    for (jack_nframes_t i = 0; i < frames && at + i < recording->capacity; i++)
        recording->samples[(at + i) * (uint64_t)recording->channels + (uint64_t)channel] = samples[i];
}

/* The cycle at `at` is written: the recording reaches its end. */
static inline void frame_stamped_done(struct frame_stamped *recording, uint64_t at, jack_nframes_t frames) {
    if (at + frames > atomic_load(&recording->end)) atomic_store(&recording->end, at + frames);
}

/* A cycle of a one-port recorder: `port`'s buffer written at its place; returns that place. */
static inline uint64_t frame_stamped_port(struct frame_stamped *recording, jack_client_t *client, jack_port_t *port, jack_nframes_t frames) {
    uint64_t at = frame_stamped_at(recording, client);
    frame_stamped_write(recording, at, 0, jack_port_get_buffer(port, frames), frames);
    frame_stamped_done(recording, at, frames);
    return at;
}

/* Ends the process (exit 75) once its parent is no longer `parent`: the test that started
 * it is gone, and a recorder whose server went with it would wait for frames that never come. */
static inline void frame_stamped_end_if_orphaned(pid_t parent) {
    if (getppid() != parent) _exit(75);
}

/* Says "recording" on stdout, waits until the recording is full, then leaves the server;
 * ends at once if the test that started it is gone. */
static inline void frame_stamped_run(struct frame_stamped *recording, jack_client_t *client) {
    pid_t parent = getppid();
    printf("recording\n");
    fflush(stdout);
    while (atomic_load(&recording->end) < recording->capacity) {
        frame_stamped_end_if_orphaned(parent);
        usleep(10000);
    }
    jack_deactivate(client);
    jack_client_close(client);
}

/* The recording's frame now (JACK's estimate of the frame being processed). */
static inline uint64_t frame_stamped_now(struct frame_stamped *recording, jack_client_t *client) {
    return (uint32_t)(jack_frame_time(client) - recording->first_frame);
}
#endif
