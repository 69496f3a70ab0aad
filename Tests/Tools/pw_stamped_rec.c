/* A PipeWire recorder that places every cycle by the graph's own clock.
 *
 *   pw_stamped_rec TARGET SECONDS FILE
 *
 * Records the monitor of the sink TARGET (a node name) as mono 32-bit float
 * at 48 kHz into FILE (a float WAV), at most SECONDS of graph time, until
 * SIGINT or SIGTERM. Each buffer is written at the graph clock's position of
 * the cycle that brought it (pw_time.ticks) counted from the first, so a
 * cycle this recorder missed (its thread was not run in time on a loaded
 * machine) is a stretch of silence in the file rather than missing from it:
 * the file is what the sink heard, not what the recorder managed to take.
 * pw-record, which appends what it gets, turns such a cycle into a click
 * early by a whole quantum. The twin of jack_stamped_rec.c.
 *
 * Prints "recording" on stdout once the stream is linked and running, and on
 * stderr at the end a line "gap at frame F: N frames" for each of the first 64
 * cycles it missed, "late at frame F: N frames" for each of the first 64
 * stretches of cycles it took after their end (the graph catching up after a
 * stall, when a JACK client's output may reach the sink a cycle late), then
 * "lost N frames in M gaps".
 * Built by the tests and scripts/pipewire.sh with the Swift toolchain's clang.
 */
#include <pipewire/pipewire.h>
#include <signal.h>
#include <sndfile.h>
#include <spa/param/audio/format-utils.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { rate = 48000 };

static struct pw_main_loop *loop;
static struct pw_stream *stream;
static float *recording;
static uint64_t capacity;
static int started;
static uint64_t first_tick;
static atomic_uint_fast64_t end_of_recording;
static atomic_uint_fast64_t lost_frames;
static atomic_uint_fast64_t gaps;
static uint64_t expected_tick;
/* Where the first gaps were (in the recording's frames) and how long: printed at the end. */
#define GAPS_KEPT 64
static uint64_t gap_at[GAPS_KEPT], gap_frames[GAPS_KEPT];
/* Stretches of cycles this recorder ran after their end (the graph catching up after a stall). */
static uint64_t late_at[GAPS_KEPT], late_frames[GAPS_KEPT];
static uint64_t lates, late_end;

/* The data thread: no allocation, no I/O, only copies into the preallocated recording. */
static void on_process(void *data) {
    (void)data;
    struct pw_buffer *buffer;
    while ((buffer = pw_stream_dequeue_buffer(stream)) != NULL) {
        struct pw_time time;
        struct spa_data *d = &buffer->buffer->datas[0];
        if (pw_stream_get_time_n(stream, &time, sizeof time) == 0 && d->data != NULL && d->chunk != NULL) {
            uint32_t offset = d->chunk->offset < d->maxsize ? d->chunk->offset : d->maxsize;
            uint32_t bytes = d->chunk->size < d->maxsize - offset ? d->chunk->size : d->maxsize - offset;
            uint64_t frames = bytes / sizeof(float);
            if (!started) {
                started = 1;
                first_tick = time.ticks;
                expected_tick = time.ticks;
            }
            if (time.ticks > expected_tick) {
                uint64_t gap = atomic_fetch_add(&gaps, 1);
                if (gap < GAPS_KEPT) {
                    gap_at[gap] = expected_tick - first_tick;
                    gap_frames[gap] = time.ticks - expected_tick;
                }
                atomic_fetch_add(&lost_frames, time.ticks - expected_tick);
            }
            expected_tick = time.ticks + frames;
            struct timespec real;
            clock_gettime(CLOCK_MONOTONIC, &real);
            if ((int64_t)real.tv_sec * 1000000000 + real.tv_nsec >= time.now + (int64_t)(frames * 1000000000 / rate)) {
                uint64_t from = time.ticks - first_tick;
                if (lates > 0 && lates <= GAPS_KEPT && late_end == from) late_frames[lates - 1] += frames;
                else if (lates++ < GAPS_KEPT) { late_at[lates - 1] = from; late_frames[lates - 1] = frames; }
                late_end = from + frames;
            }
            uint64_t at = time.ticks - first_tick;
            if (at < capacity) {
                uint64_t n = frames < capacity - at ? frames : capacity - at;
                memcpy(recording + at, (const char *)d->data + offset, n * sizeof(float));
                if (at + n > atomic_load(&end_of_recording)) atomic_store(&end_of_recording, at + n);
            }
        }
        pw_stream_queue_buffer(stream, buffer);
    }
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    (void)data; (void)old;
    if (state == PW_STREAM_STATE_STREAMING) {
        printf("recording\n");
        fflush(stdout);
    } else if (state == PW_STREAM_STATE_ERROR) {
        fprintf(stderr, "pw_stamped_rec: %s\n", error ? error : "stream error");
        pw_main_loop_quit(loop);
    }
}

static const struct pw_stream_events events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .process = on_process,
};

static void on_signal(void *data, int number) {
    (void)data; (void)number;
    pw_main_loop_quit(loop);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: pw_stamped_rec TARGET SECONDS FILE\n");
        return 64;
    }
    capacity = (uint64_t)atoll(argv[2]) * rate;
    recording = calloc(capacity ? capacity : 1, sizeof(float));
    if (recording == NULL) { perror("pw_stamped_rec"); return 70; }

    pw_init(&argc, &argv);
    loop = pw_main_loop_new(NULL);
    pw_loop_add_signal(pw_main_loop_get_loop(loop), SIGINT, on_signal, NULL);
    pw_loop_add_signal(pw_main_loop_get_loop(loop), SIGTERM, on_signal, NULL);
    struct pw_properties *props = pw_properties_new(
        PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Capture", PW_KEY_MEDIA_ROLE, "Production",
        PW_KEY_NODE_NAME, "pw_stamped_rec", PW_KEY_TARGET_OBJECT, argv[1],
        PW_KEY_STREAM_CAPTURE_SINK, "true", NULL);
    stream = pw_stream_new_simple(pw_main_loop_get_loop(loop), "pw_stamped_rec", props, &events, NULL);

    uint8_t pod_buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(pod_buffer, sizeof pod_buffer);
    struct spa_audio_info_raw info = { .format = SPA_AUDIO_FORMAT_F32, .rate = rate, .channels = 1,
                                       .position = { SPA_AUDIO_CHANNEL_MONO } };
    const struct spa_pod *params[1] = { spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info) };
    if (pw_stream_connect(stream, PW_DIRECTION_INPUT, PW_ID_ANY,
                          PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS,
                          params, 1) < 0) {
        fprintf(stderr, "pw_stamped_rec: cannot connect the stream\n");
        return 69;
    }
    pw_main_loop_run(loop);
    pw_stream_destroy(stream);

    SF_INFO format = { .samplerate = rate, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT };
    SNDFILE *file = sf_open(argv[3], SFM_WRITE, &format);
    if (file == NULL) { fprintf(stderr, "pw_stamped_rec: %s: %s\n", argv[3], sf_strerror(NULL)); return 73; }
    sf_count_t frames = (sf_count_t)atomic_load(&end_of_recording);
    if (sf_writef_float(file, recording, frames) != frames) { fprintf(stderr, "pw_stamped_rec: %s\n", sf_strerror(file)); return 74; }
    sf_close(file);
    uint64_t kept = atomic_load(&gaps) < GAPS_KEPT ? atomic_load(&gaps) : GAPS_KEPT;
    for (uint64_t gap = 0; gap < kept; gap++)
        fprintf(stderr, "gap at frame %llu: %llu frames\n", (unsigned long long)gap_at[gap], (unsigned long long)gap_frames[gap]);
    for (uint64_t late = 0; late < (lates < GAPS_KEPT ? lates : GAPS_KEPT); late++)
        fprintf(stderr, "late at frame %llu: %llu frames\n", (unsigned long long)late_at[late], (unsigned long long)late_frames[late]);
    fprintf(stderr, "lost %llu frames in %llu gaps\n",
            (unsigned long long)atomic_load(&lost_frames), (unsigned long long)atomic_load(&gaps));
    pw_main_loop_destroy(loop);
    pw_deinit();
    return 0;
}
