#ifndef METRONOME_CSNDFILE_SHIM_H
#define METRONOME_CSNDFILE_SHIM_H

#include <sndfile.h>

#endif
