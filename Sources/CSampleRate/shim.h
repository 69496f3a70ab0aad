#ifndef METRONOME_CSAMPLERATE_SHIM_H
#define METRONOME_CSAMPLERATE_SHIM_H

#include <samplerate.h>

#endif
