#ifndef METRONOME_ALLOCATION_COUNTER_H
#define METRONOME_ALLOCATION_COUNTER_H

#include <stdint.h>

// Counts heap allocations made by the calling thread between begin and end.
// The test executable defines malloc and friends, which forward to glibc's
// __libc_* entry points; shared libraries (the Swift runtime among them)
// bind to these definitions, so every allocation of the process passes here.
void metronome_counting_begin(void);
uint64_t metronome_counting_end(void);
// 1 when allocations are counted; 0 in a sanitized build, where the sanitizer owns malloc.
int metronome_counting_available(void);

#endif
