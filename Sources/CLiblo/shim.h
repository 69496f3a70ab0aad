#ifndef METRONOME_CLIBLO_SHIM_H
#define METRONOME_CLIBLO_SHIM_H
// liblo (Debian's liblo-dev): OSC's messages encoded and decoded by the OSC library of Linux audio.
#include <lo/lo.h>
#include <lo/lo_lowlevel.h>
#endif
