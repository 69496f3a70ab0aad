/* A JACK client that plays the drummer for the practice inspector's tests.
 *
 *   jack_drummer OFFSETS [BLEED_DB [CLICKS]]
 *
 * Registers "jack_drummer:clicks" (an input: the metronome's playback is
 * wired to it) and "jack_drummer:hits" (an output: the metronome's capture
 * device reads it). It hears each click (a sample above 0.1 after at least
 * 50 ms below it), predicts the next from the last interval, and plays a
 * short percussive hit (noise rising over 0.5 ms, decaying over 15 ms) at
 * that predicted click moved by one of OFFSETS, a comma-separated list of
 * frames (negative early): click K (from 0) takes the (K mod count)th. The
 * first two clicks get no hit (the interval is not known yet), and a hit is
 * also played on the click predicted after the last. "echo" for OFFSETS plays a hit
 * on the very frame of every click heard, for a round-trip measurement.
 * With BLEED_DB it also mixes the clicks it hears into its output at that
 * level (-26: the metronome heard in the player's microphone). With CLICKS,
 * no hit is aimed at click CLICKS or later (the take's clicks end there).
 * Prints "ready" once its ports exist, then "hit F K O" for each hit it
 * starts: its frame (JACK time), the index of the click it aims at (from 0,
 * the first click heard) and the offset played.
 *
 * "react:OFFSETS" plays each hit after hearing its click instead of ahead of
 * it: at the click's frame plus its offset (0 or more), so a tempo change
 * never throws it off; an "x" among them plays no hit on that click (a miss).
 */
#include <jack/jack.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OFFSETS 256
#define LOG_SIZE 4096

static jack_client_t *client;
static jack_port_t *clicks, *hits;
static long offsets[MAX_OFFSETS];
static int offset_count, echo, react;
/* In react mode, the offsets that play no hit. */
#define MISS INT64_MIN
static int64_t react_offsets[MAX_OFFSETS];
static int64_t click_limit = INT64_MAX;
static float bleed;
static jack_nframes_t rate;

/* The drummer's state, the process thread's only. */
static int64_t last_click = -1, interval = 0, quiet = 1 << 30, clicks_heard = 0;
/* Hits planned and not yet started (a late one can still be due when the next click is heard). */
static int64_t planned_frame[4] = {-1, -1, -1, -1}, planned_click[4], planned_offset[4];
static int64_t hit_start = -1;
static uint32_t noise_state = 12345;

/* Hits started, handed to the main thread to print. */
static int64_t log_frames[LOG_SIZE], log_clicks[LOG_SIZE], log_offsets[LOG_SIZE];
static atomic_int log_written, log_read;

static float noise(void) {
    noise_state = noise_state * 1664525u + 1013904223u;
    return (float)(int32_t)noise_state / 2147483647.0f;
}

static float hit_sample(int64_t since) {
    if (since < 0 || since >= (int64_t)rate / 20) return 0;
    float attack = rate * 0.0005f;
    float rise = since < attack ? since / attack : 1;
    return 0.5f * rise * noise() * expf(-since / (rate * 0.015f));
}

static void start_hit(int64_t frame, int64_t click, int64_t offset) {
    hit_start = frame;
    int at = atomic_load(&log_written);
    if (at - atomic_load(&log_read) < LOG_SIZE) {
        log_frames[at % LOG_SIZE] = frame;
        log_clicks[at % LOG_SIZE] = click;
        log_offsets[at % LOG_SIZE] = offset;
        atomic_store(&log_written, at + 1);
    }
}

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    int64_t now = jack_last_frame_time(client);
    const float *in = jack_port_get_buffer(clicks, frames);
    float *out = jack_port_get_buffer(hits, frames);
    for (jack_nframes_t i = 0; i < frames; i++) {
        int64_t frame = now + i;
        if (fabsf(in[i]) > 0.1f) {
            if (quiet >= (int64_t)rate / 20) {
                if (last_click >= 0) interval = frame - last_click;
                last_click = frame;
                int64_t index = clicks_heard++;
                if (echo) {
                    start_hit(frame, index, 0);
                } else if (react) {
                    int64_t offset = react_offsets[index % offset_count];
                    for (int slot = 0; slot < 4 && offset != MISS && index < click_limit; slot++) {
                        if (planned_frame[slot] >= 0) continue;
                        planned_frame[slot] = frame + offset;
                        planned_click[slot] = index;
                        planned_offset[slot] = offset;
                        break;
                    }
                } else if (interval > 0 && index + 1 < click_limit) {
                    /* The next click, predicted a click ahead: far enough to play up to 35 ms early. */
                    int64_t offset = offsets[(index + 1) % offset_count];
                    for (int slot = 0; slot < 4; slot++) {
                        if (planned_frame[slot] >= 0) continue;
                        planned_frame[slot] = frame + interval + offset;
                        planned_click[slot] = index + 1;
                        planned_offset[slot] = offset;
                        break;
                    }
                }
            }
            quiet = 0;
        } else {
            quiet++;
        }
        for (int slot = 0; slot < 4; slot++) {
            if (planned_frame[slot] != frame) continue;
            start_hit(frame, planned_click[slot], planned_offset[slot]);
            planned_frame[slot] = -1;
        }
        out[i] = (hit_start >= 0 ? hit_sample(frame - hit_start) : 0) + bleed * in[i];
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: jack_drummer OFFSETS|react:OFFSETS|echo [BLEED_DB [CLICKS]]\n");
        return 64;
    }
    if (strcmp(argv[1], "echo") == 0) {
        echo = 1;
    } else if (strncmp(argv[1], "react:", 6) == 0) {
        react = 1;
        char *text = argv[1] + 6;
        while (*text && offset_count < MAX_OFFSETS) {
            if (*text == 'x') {
                react_offsets[offset_count++] = MISS;
                text++;
            } else {
                char *end;
                long offset = strtol(text, &end, 10);
                if (end == text || offset < 0) return 64;
                react_offsets[offset_count++] = offset;
                text = end;
            }
            if (*text == ',') text++;
        }
        if (offset_count == 0) return 64;
    } else {
        char *text = argv[1];
        while (*text && offset_count < MAX_OFFSETS) {
            offsets[offset_count++] = strtol(text, &text, 10);
            if (*text == ',') text++;
        }
        if (offset_count == 0) return 64;
    }
    if (argc > 2) bleed = powf(10, atof(argv[2]) / 20);
    if (argc > 3) click_limit = atoll(argv[3]);
    client = jack_client_open("jack_drummer", JackNoStartServer, NULL);
    if (!client) {
        fprintf(stderr, "jack_drummer: no server\n");
        return 69;
    }
    rate = jack_get_sample_rate(client);
    clicks = jack_port_register(client, "clicks", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    hits = jack_port_register(client, "hits", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    jack_set_process_callback(client, process, NULL);
    if (jack_activate(client)) return 69;
    pid_t parent = getppid();
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        if (getppid() != parent) return 75;  /* the test that started it is gone */
        while (atomic_load(&log_read) < atomic_load(&log_written)) {
            int at = atomic_load(&log_read);
            printf("hit %lld %lld %lld\n", (long long)log_frames[at % LOG_SIZE], (long long)log_clicks[at % LOG_SIZE],
                   (long long)log_offsets[at % LOG_SIZE]);
            fflush(stdout);
            atomic_store(&log_read, at + 1);
        }
        usleep(10000);
    }
}
