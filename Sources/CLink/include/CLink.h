/* The C face of Ableton Link (ableton::Link, header-only C++), so Swift can
 * call it: Swift's C++ interop cannot import ableton::Link, which deletes its
 * copy and move constructors. Nothing here but Link's own API, each function
 * named after the Link call it stands for; times are Link's clock, in
 * microseconds (CLOCK_MONOTONIC_RAW on Linux). */
#ifndef MTL_CLINK_H
#define MTL_CLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
/* None of these lets an exception out: C++ sees that in their types. */
#define MTL_NOEXCEPT noexcept
extern "C" {
#else
#define MTL_NOEXCEPT
#endif

/* One participant in a Link session (ableton::Link). */
typedef struct mtl_link mtl_link;

/* A captured ableton::Link::SessionState, by value: the caller owns the
 * storage (on the stack or inside its own object), so capturing one on the
 * audio thread allocates nothing. Only the functions below read it. */
typedef struct mtl_link_session_state {
    int64_t storage[16];
} mtl_link_session_state;

/* ableton::Link(bpm): a disabled instance. NULL if Link could not be made. */
mtl_link *mtl_link_create(double bpm) MTL_NOEXCEPT;
/* ~Link(): leaves the session and joins Link's threads. Not realtime-safe. */
void mtl_link_destroy(mtl_link *link) MTL_NOEXCEPT;

/* Link::enable(true/false). Not realtime-safe. False if Link threw. */
bool mtl_link_enable(mtl_link *link, bool enable) MTL_NOEXCEPT;
/* Link::isEnabled(). Realtime-safe. */
bool mtl_link_is_enabled(const mtl_link *link) MTL_NOEXCEPT;
/* Link::numPeers(): the other participants in the session. Realtime-safe. */
uint64_t mtl_link_num_peers(const mtl_link *link) MTL_NOEXCEPT;
/* Link::enableStartStopSync(true/false). Not realtime-safe. False if Link threw. */
bool mtl_link_enable_start_stop_sync(mtl_link *link, bool enable) MTL_NOEXCEPT;
/* Link::isStartStopSyncEnabled(). */
bool mtl_link_is_start_stop_sync_enabled(const mtl_link *link) MTL_NOEXCEPT;
/* Link::clock().micros(): Link's host time now. Realtime-safe. */
int64_t mtl_link_clock_micros(const mtl_link *link) MTL_NOEXCEPT;

/* Link::captureAudioSessionState() into *state. Audio thread only; realtime-safe. */
void mtl_link_capture_audio_session_state(const mtl_link *link, mtl_link_session_state *state) MTL_NOEXCEPT;
/* Link::commitAudioSessionState(*state). Audio thread only; realtime-safe. */
void mtl_link_commit_audio_session_state(mtl_link *link, const mtl_link_session_state *state) MTL_NOEXCEPT;
/* Link::captureAppSessionState() into *state. Any thread but the audio thread. */
void mtl_link_capture_app_session_state(const mtl_link *link, mtl_link_session_state *state) MTL_NOEXCEPT;
/* Link::commitAppSessionState(*state). Any thread but the audio thread. False if Link threw. */
bool mtl_link_commit_app_session_state(mtl_link *link, const mtl_link_session_state *state) MTL_NOEXCEPT;

/* SessionState::tempo(), in bpm. */
double mtl_link_state_tempo(const mtl_link_session_state *state) MTL_NOEXCEPT;
/* SessionState::setTempo(bpm, atTime). */
void mtl_link_state_set_tempo(mtl_link_session_state *state, double bpm, int64_t at_micros) MTL_NOEXCEPT;
/* SessionState::beatAtTime(time, quantum). */
double mtl_link_state_beat_at_time(const mtl_link_session_state *state, int64_t micros, double quantum) MTL_NOEXCEPT;
/* SessionState::phaseAtTime(time, quantum), in [0, quantum). */
double mtl_link_state_phase_at_time(const mtl_link_session_state *state, int64_t micros, double quantum) MTL_NOEXCEPT;
/* SessionState::timeAtBeat(beat, quantum). */
int64_t mtl_link_state_time_at_beat(const mtl_link_session_state *state, double beat, double quantum) MTL_NOEXCEPT;
/* SessionState::requestBeatAtTime(beat, time, quantum). */
void mtl_link_state_request_beat_at_time(mtl_link_session_state *state, double beat, int64_t micros, double quantum) MTL_NOEXCEPT;
/* SessionState::isPlaying(). */
bool mtl_link_state_is_playing(const mtl_link_session_state *state) MTL_NOEXCEPT;
/* SessionState::setIsPlaying(isPlaying, time). */
void mtl_link_state_set_is_playing(mtl_link_session_state *state, bool is_playing, int64_t at_micros) MTL_NOEXCEPT;
/* SessionState::timeForIsPlaying(): when the last start or stop takes effect. */
int64_t mtl_link_state_time_for_is_playing(const mtl_link_session_state *state) MTL_NOEXCEPT;
/* SessionState::setIsPlayingAndRequestBeatAtTime(isPlaying, time, beat, quantum). */
void mtl_link_state_set_is_playing_and_request_beat_at_time(mtl_link_session_state *state, bool is_playing,
                                                            int64_t micros, double beat, double quantum) MTL_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
