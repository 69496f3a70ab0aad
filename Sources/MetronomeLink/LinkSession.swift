import CLink

/// This program's place in an Ableton Link session (`ableton::Link`): peers
/// on the local network that share one tempo, one beat phase and, if they
/// choose, start and stop.
///
/// Made disabled, as Link is; `enable()` joins the network. Thread-safe but
/// for the audio pair (`captureAudioState`, `commitAudioState`), which belongs
/// to the audio thread alone and is realtime-safe. Destroying it leaves the
/// session and joins Link's threads: never on the audio thread. Every call to
/// `CLink` (the C API over Link's C++) is in this target.
package final class LinkSession: @unchecked Sendable {
    private let link: OpaquePointer

    /// A session of our own at `bpm` (Link keeps tempi within 20 to 999 bpm).
    package init(bpm: Double) throws(LinkError) {
        guard let link = mtl_link_create(bpm) else { throw LinkError(call: "mtl_link_create") }
        self.link = link
    }

    deinit {
        mtl_link_destroy(link)
    }

    /// Whether Link takes part on the network (`Link::isEnabled`).
    package var isEnabled: Bool { mtl_link_is_enabled(link) }

    /// Joins the session on the local network (`Link::enable(true)`): a
    /// newcomer adopts the tempo and phase of the peers it finds.
    package func enable() throws(LinkError) {
        try LinkError.check(mtl_link_enable(link, true), "mtl_link_enable")
    }

    /// Leaves the network (`Link::enable(false)`); the timeline plays on alone.
    package func disable() throws(LinkError) {
        try LinkError.check(mtl_link_enable(link, false), "mtl_link_enable")
    }

    /// How many other participants share the session (`Link::numPeers`). Realtime-safe.
    package var peers: Int { Int(mtl_link_num_peers(link)) }

    /// Whether start and stop are shared with the peers that share them (`Link::isStartStopSyncEnabled`).
    package var isStartStopSyncEnabled: Bool { mtl_link_is_start_stop_sync_enabled(link) }

    /// Shares start and stop, or stops sharing them (`Link::enableStartStopSync`).
    package func setStartStopSync(_ enabled: Bool) throws(LinkError) {
        try LinkError.check(mtl_link_enable_start_stop_sync(link, enabled), "mtl_link_enable_start_stop_sync")
    }

    /// Link's clock now (`Link::clock().micros()`). Realtime-safe.
    package func now() -> LinkTime {
        LinkTime(micros: mtl_link_clock_micros(link))
    }

    /// The session as it stands, on the audio thread only (`Link::captureAudioSessionState`). Realtime-safe.
    package func captureAudioState() -> LinkSessionState {
        var state = LinkSessionState()
        mtl_link_capture_audio_session_state(link, &state.raw)
        return state
    }

    /// Makes `state` the session's, on the audio thread only (`Link::commitAudioSessionState`). Realtime-safe.
    package func commitAudioState(_ state: LinkSessionState) {
        withUnsafePointer(to: state.raw) { mtl_link_commit_audio_session_state(link, $0) }
    }

    /// The session as it stands, on any thread but the audio thread (`Link::captureAppSessionState`).
    package func captureAppState() -> LinkSessionState {
        var state = LinkSessionState()
        mtl_link_capture_app_session_state(link, &state.raw)
        return state
    }

    /// Makes `state` the session's, for every peer, from any thread but the audio thread (`Link::commitAppSessionState`).
    package func commitAppState(_ state: LinkSessionState) throws(LinkError) {
        try withUnsafePointer(to: state.raw) { (pointer) throws(LinkError) in
            try LinkError.check(mtl_link_commit_app_session_state(link, pointer), "mtl_link_commit_app_session_state")
        }
    }
}
