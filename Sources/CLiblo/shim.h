#ifndef METRONOME_CLIBLO_SHIM_H
#define METRONOME_CLIBLO_SHIM_H
// liblo (Debian's liblo-dev): OSC's messages encoded and decoded by the OSC library of Linux audio.
#include <lo/lo.h>
#include <lo/lo_lowlevel.h>
// epoll, which Swift's Glibc module leaves out: the OSC server waits on its UDP socket and TCP's connections as one descriptor.
#include <sys/epoll.h>
#endif
