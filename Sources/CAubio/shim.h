#ifndef METRONOME_CAUBIO_SHIM_H
#define METRONOME_CAUBIO_SHIM_H

// Onset detection only: the inspector hears notes with it.
#include <aubio/aubio.h>

#endif
