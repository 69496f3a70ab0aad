/* The least a pendulum picture can cost on this machine, as the floor's loop
 * (Benchmarks/wakeup-floor.c) would draw one: at each wake it reads the
 * monotonic clock, eases the pendulum's angle between its extremes over each
 * beat at BPM, and rewrites only the cells of the rod and the bob that moved
 * (each row's old cell blanked, its new one drawn, a cursor move each) and the
 * beat line when the beat changes, in one write. No grid, no allocation, no
 * library but libc and libm: a bound from below on what any picture of a
 * swinging pendulum costs each frame. scripts/benchmark-picture prints its CPU
 * beside the floor's and the metronome's.
 * Usage: least-picture FPS SECONDS BPM */
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

enum { maxHeight = 256 };
static char out[maxHeight * 64];

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Appends the cursor move to row y, column x (both from 0) and the character c. */
static size_t put(size_t used, int y, int x, char c) {
    char digits[24];
    int n = 0;
    out[used++] = '\033', out[used++] = '[';
    for (int v = y + 1; v; v /= 10) digits[n++] = (char)('0' + v % 10);
    while (n) out[used++] = digits[--n];
    out[used++] = ';';
    for (int v = x + 1; v; v /= 10) digits[n++] = (char)('0' + v % 10);
    while (n) out[used++] = digits[--n];
    out[used++] = 'H';
    out[used++] = c;
    return used;
}

int main(int argc, char **argv) {
    if (argc < 4) { fputs("usage: least-picture FPS SECONDS BPM\n", stderr); return 64; }
    long long period = 1000000000LL / atoi(argv[1]);
    long long start = now_ns(), end = start + atoll(argv[2]) * 1000000000LL;
    long long beat = 60000000000LL / atoll(argv[3]);
    struct winsize size = {0};
    ioctl(STDOUT_FILENO, TIOCGWINSZ, &size);
    int w = size.ws_col ? size.ws_col : 80, h = size.ws_row ? size.ws_row : 24;
    if (h > maxHeight) h = maxHeight;
    if (h < 6) h = 6;
    /* Each row's drawn column and character, none yet. */
    int drawnX[maxHeight];
    char drawnC[maxHeight];
    for (int y = 0; y < h; y++) drawnX[y] = -1, drawnC[y] = ' ';
    if (write(STDOUT_FILENO, "\033[2J", 4) < 0) return 1;
    struct pollfd input = {STDIN_FILENO, POLLIN, 0};
    long long shownBeat = -1;
    int px = w / 2, py = 1, length = h - 4;
    for (long long next = now_ns(); next < end;) {
        long long t = now_ns() - start;
        long long count = t / beat;
        double phase = (double)(t % beat) / (double)beat;  /* 0 at a click, 1 at the next */
        double rising = -2 * phase + 2;
        double eased = phase < 0.5 ? 4 * phase * phase * phase : 1 - rising * rising * rising / 2;
        double angle = (count % 2 ? 1 : -1) * (1 - 2 * eased) * 0.6;
        /* A cell a row from the pivot down to the bob, then nothing below it. */
        double slope = tan(angle) * 2;
        int bob = py + (int)lround(length * cos(angle));
        char rod = angle > 0.15 ? '\\' : angle < -0.15 ? '/' : '|';
        size_t used = 0;
        for (int y = py; y < h - 1; y++) {
            int x = y <= bob ? px + (int)lround(slope * (y - py)) : -1;
            char c = y == bob ? 'O' : rod;
            if (x < 0 || x >= w) x = -1;
            if (drawnX[y] == x && (x < 0 || drawnC[y] == c)) continue;
            if (drawnX[y] >= 0 && drawnX[y] != x) used = put(used, y, drawnX[y], ' ');
            if (x >= 0) used = put(used, y, x, c);
            drawnX[y] = x, drawnC[y] = c;
        }
        if (count != shownBeat) {
            shownBeat = count;
            used += (size_t)snprintf(out + used, sizeof out - used, "\033[%d;1Hbeat %lld of 4   %s bpm", h, count % 4 + 1, argv[3]);
        }
        if (used && write(STDOUT_FILENO, out, used) < 0) return 1;
        next += period;
        long long wait = next - now_ns();
        if (wait > 0) poll(&input, 1, (int)(wait / 1000000));
    }
    return 0;
}
