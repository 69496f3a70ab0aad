#ifndef METRONOME_CAUBIO_SHIM_H
#define METRONOME_CAUBIO_SHIM_H

// Onset detection only: the inspector hears notes with it. The types only:
// nothing links libaubio; Metronome loads it when the inspector starts
// (AubioLibrary.swift, dlopen), so a run that does not listen maps none of it.
#include <aubio/aubio.h>

#endif
