#include <stdint.h>
void metronome_counting_begin(void);
uint64_t metronome_counting_end(void);
