// The C functions of CLink.h over ableton::Link. The one translation unit
// that includes Link (and asio), so the C++ compiles once.
#include "CLink.h"

#include <ableton/Link.hpp>

#include <chrono>
#include <new>
#include <type_traits>

struct mtl_link {
    ableton::Link link;
    explicit mtl_link(double bpm) : link(bpm) {}
};

namespace {

using SessionState = ableton::Link::SessionState;
using std::chrono::microseconds;

// The caller's storage holds a SessionState by value; Swift copies it as bytes.
static_assert(sizeof(SessionState) <= sizeof(mtl_link_session_state), "mtl_link_session_state is too small for Link's SessionState");
static_assert(alignof(SessionState) <= alignof(mtl_link_session_state), "mtl_link_session_state is under-aligned for Link's SessionState");
static_assert(std::is_trivially_copyable<SessionState>::value, "a SessionState must survive being copied as bytes");
static_assert(std::is_trivially_destructible<SessionState>::value, "a SessionState in caller storage is never destroyed");

SessionState &stateIn(mtl_link_session_state *state) noexcept {
    return *std::launder(reinterpret_cast<SessionState *>(state->storage));
}

const SessionState &stateIn(const mtl_link_session_state *state) noexcept {
    return *std::launder(reinterpret_cast<const SessionState *>(state->storage));
}

void store(const SessionState &captured, mtl_link_session_state *state) noexcept {
    new (state->storage) SessionState(captured);
}

} // namespace

extern "C" {

mtl_link *mtl_link_create(double bpm) noexcept {
    try {
        return new mtl_link(bpm);
    } catch (...) {
        return nullptr;
    }
}

void mtl_link_destroy(mtl_link *link) noexcept { delete link; }

bool mtl_link_enable(mtl_link *link, bool enable) noexcept {
    try {
        link->link.enable(enable);
        return true;
    } catch (...) {
        return false;
    }
}

bool mtl_link_is_enabled(const mtl_link *link) noexcept { return link->link.isEnabled(); }

uint64_t mtl_link_num_peers(const mtl_link *link) noexcept { return link->link.numPeers(); }

bool mtl_link_enable_start_stop_sync(mtl_link *link, bool enable) noexcept {
    try {
        link->link.enableStartStopSync(enable);
        return true;
    } catch (...) {
        return false;
    }
}

bool mtl_link_is_start_stop_sync_enabled(const mtl_link *link) noexcept { return link->link.isStartStopSyncEnabled(); }

int64_t mtl_link_clock_micros(const mtl_link *link) noexcept { return link->link.clock().micros().count(); }

// Each function is noexcept (see CLink.h): where Link may throw (making it,
// enabling it, committing from an app thread) the error comes back as a
// result; elsewhere Link does not throw, and a surprise would stop the process
// cleanly rather than unwind into Swift.
void mtl_link_capture_audio_session_state(const mtl_link *link, mtl_link_session_state *state) noexcept {
    store(link->link.captureAudioSessionState(), state);
}

void mtl_link_commit_audio_session_state(mtl_link *link, const mtl_link_session_state *state) noexcept {
    link->link.commitAudioSessionState(stateIn(state));
}

void mtl_link_capture_app_session_state(const mtl_link *link, mtl_link_session_state *state) noexcept {
    store(link->link.captureAppSessionState(), state);
}

bool mtl_link_commit_app_session_state(mtl_link *link, const mtl_link_session_state *state) noexcept {
    try {
        link->link.commitAppSessionState(stateIn(state));
        return true;
    } catch (...) {
        return false;
    }
}

double mtl_link_state_tempo(const mtl_link_session_state *state) noexcept { return stateIn(state).tempo(); }

void mtl_link_state_set_tempo(mtl_link_session_state *state, double bpm, int64_t at_micros) noexcept {
    stateIn(state).setTempo(bpm, microseconds(at_micros));
}

double mtl_link_state_beat_at_time(const mtl_link_session_state *state, int64_t micros, double quantum) noexcept {
    return stateIn(state).beatAtTime(microseconds(micros), quantum);
}

double mtl_link_state_phase_at_time(const mtl_link_session_state *state, int64_t micros, double quantum) noexcept {
    return stateIn(state).phaseAtTime(microseconds(micros), quantum);
}

int64_t mtl_link_state_time_at_beat(const mtl_link_session_state *state, double beat, double quantum) noexcept {
    return stateIn(state).timeAtBeat(beat, quantum).count();
}

void mtl_link_state_request_beat_at_time(mtl_link_session_state *state, double beat, int64_t micros, double quantum) noexcept {
    stateIn(state).requestBeatAtTime(beat, microseconds(micros), quantum);
}

bool mtl_link_state_is_playing(const mtl_link_session_state *state) noexcept { return stateIn(state).isPlaying(); }

void mtl_link_state_set_is_playing(mtl_link_session_state *state, bool is_playing, int64_t at_micros) noexcept {
    stateIn(state).setIsPlaying(is_playing, microseconds(at_micros));
}

int64_t mtl_link_state_time_for_is_playing(const mtl_link_session_state *state) noexcept {
    return stateIn(state).timeForIsPlaying().count();
}

void mtl_link_state_set_is_playing_and_request_beat_at_time(mtl_link_session_state *state, bool is_playing,
                                                            int64_t micros, double beat, double quantum) noexcept {
    stateIn(state).setIsPlayingAndRequestBeatAtTime(is_playing, microseconds(micros), beat, quantum);
}

} // extern "C"
