#ifndef METRONOME_CALSA_SHIM_H
#define METRONOME_CALSA_SHIM_H

#include <alsa/asoundlib.h>

// alsa-lib prints its own diagnostics to stderr through a variadic callback;
// Swift cannot define a C variadic function, so the silent one lives here.
// The metronome reports each failure itself, in one line.
static inline void metronome_alsa_silent_error(const char *file, int line, const char *function,
                                               int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void metronome_alsa_silence_errors(void) {
    snd_lib_error_set_handler(metronome_alsa_silent_error);
}

#endif
