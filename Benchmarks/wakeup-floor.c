/* The least a 60 frames/s terminal picture can cost on this machine: wake
 * FPS times a second (poll on stdin with a timeout, as the metronome does)
 * and write one cursor move and 64 characters to the terminal, for SECONDS.
 * scripts/benchmark prints its CPU beside the metronome's.
 * Usage: wakeup-floor FPS SECONDS */
#include <poll.h>
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
    long long period = 1000000000LL / (argc > 1 ? atoi(argv[1]) : 60);
    long long end = now_ns() + (argc > 2 ? atoll(argv[2]) : 20) * 1000000000LL;
    char row[72] = "\033[5;5H";
    memset(row + 6, '#', 64);
    struct pollfd input = {STDIN_FILENO, POLLIN, 0};
    for (long long next = now_ns(); next < end;) {
        if (write(STDOUT_FILENO, row, 70) < 0) return 1;
        next += period;
        long long wait = next - now_ns();
        if (wait > 0) poll(&input, 1, (int)(wait / 1000000));
    }
    return 0;
}
