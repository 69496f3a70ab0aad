#ifndef METRONOME_CJACK_SHIM_H
#define METRONOME_CJACK_SHIM_H

// JACK's types only: nothing links libjack; the Audio layer loads it when a
// JACK client is opened (JackLibrary.swift, dlopen), so a machine without
// JACK runs every other path.
#include <jack/jack.h>
#include <jack/transport.h>
#include <jack/midiport.h>

#endif
