/* The least the metronome's own picture can cost on this machine: the floor's
 * loop (Benchmarks/wakeup-floor.c: wake FPS times a second, poll on stdin with
 * a timeout) writing, at each wake, the bytes the metronome wrote for one of
 * its frames, in turn, from FILE (each frame a 4-byte little-endian length and
 * its bytes, as scripts/benchmark-picture records them). What it costs above
 * the floor is what the terminal's side of those bytes costs (the write, the
 * pty); what the metronome costs above it is its own work. FILE's first frame
 * (the whole screen) is written once; the rest loop.
 * Usage: replay-floor FILE FPS SECONDS */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 4) { fputs("usage: replay-floor FILE FPS SECONDS\n", stderr); return 64; }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 66; }
    static char bytes[1 << 24];
    size_t size = fread(bytes, 1, sizeof bytes, file);
    fclose(file);
    /* The frames' offsets and lengths. */
    static size_t offset[1 << 16], length[1 << 16];
    size_t frames = 0;
    for (size_t at = 0; at + 4 <= size && frames < (1 << 16);) {
        unsigned char *l = (unsigned char *)bytes + at;
        size_t n = l[0] | l[1] << 8 | l[2] << 16 | (size_t)l[3] << 24;
        if (at + 4 + n > size) break;
        offset[frames] = at + 4, length[frames] = n, frames++;
        at += 4 + n;
    }
    if (frames < 2) { fputs("replay-floor: fewer than two frames\n", stderr); return 65; }
    long long period = 1000000000LL / atoi(argv[2]);
    long long end = now_ns() + atoll(argv[3]) * 1000000000LL;
    struct pollfd input = {STDIN_FILENO, POLLIN, 0};
    if (write(STDOUT_FILENO, bytes + offset[0], length[0]) < 0) return 1;
    size_t frame = 1;
    for (long long next = now_ns(); next < end;) {
        if (write(STDOUT_FILENO, bytes + offset[frame], length[frame]) < 0) return 1;
        frame = frame + 1 < frames ? frame + 1 : 1;
        next += period;
        long long wait = next - now_ns();
        if (wait > 0) poll(&input, 1, (int)(wait / 1000000));
    }
    return 0;
}
