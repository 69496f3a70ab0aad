#include "AllocationCounter.h"
#include <errno.h>
#include <stddef.h>

// Under a sanitizer the sanitizer owns malloc: replacing it again would break
// its start-up. There the counter counts nothing; the plain test run counts.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define METRONOME_SANITIZED 1
#endif
#endif

#ifdef METRONOME_SANITIZED
void metronome_counting_begin(void) {}
uint64_t metronome_counting_end(void) { return 0; }
int metronome_counting_available(void) { return 0; }
#else
int metronome_counting_available(void) { return 1; }

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static _Thread_local int counting;
static _Thread_local uint64_t allocations;

static inline void note(void) {
    if (counting) allocations++;
}

void *malloc(size_t size) { note(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { note(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { note(); return __libc_realloc(pointer, size); }
void free(void *pointer) { __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    note();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void metronome_counting_begin(void) {
    allocations = 0;
    counting = 1;
}

uint64_t metronome_counting_end(void) {
    counting = 0;
    return allocations;
}
#endif
