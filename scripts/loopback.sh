# Sourced by scripts/soak, scripts/stalls and scripts/benchmark: the real
# ALSA playback path without a sound card. A JACK server on the dummy driver
# (real time), jack_thru passing audio through, and an ALSA device
# `loopback` (ALSA's jack plugin) in $HOME/.asoundrc feeding it.
#
#   loopback_start WORK NAME   HOME=WORK, server NAME-$$; returns once jack_thru is up
#   loopback_stop              stops what loopback_start started
#   stamped_recorder DIR       builds DIR/jack_stamped_rec (Tests/Tools/jack_stamped_rec.c),
#                              which records by JACK's clock
#   impulse_sounds DIR         DIR/beat.wav and DIR/bell.wav: one sample each
#                              (+8000 and -24000), so every click is one nonzero sample

loopback_start() {
    local work=$1
    export HOME=$work JACK_NO_AUDIO_RESERVATION=1 JACK_DEFAULT_SERVER=$2-$$
    # Servers killed without cleanup leave registrations that stop new ones.
    pgrep -x jackd >/dev/null || rm -rf /dev/shm/jack* 2>/dev/null || true
    printf 'pcm.loopback {\n type jack\n playback_ports { 0 jack_thru:input_1 }\n}\n' > "$work/.asoundrc"
    jackd -n "$JACK_DEFAULT_SERVER" --no-realtime -d dummy -r 48000 -p 1024 >"$work/jackd.log" 2>&1 &
    jackd_pid=$!
    # jack_wait -w asks once a second; a dummy-driver server is up in about 0.2 s.
    for _ in $(seq 500); do [[ $(jack_wait -c 2>/dev/null) == running ]] && break; sleep 0.02; done
    jack_thru >/dev/null 2>&1 &
    thru_pid=$!
    until jack_lsp 2>/dev/null | grep -qx 'jack_thru:output_1'; do sleep 0.05; done
}

loopback_stop() {
    # jack_thru at once: it has nothing to save.
    [[ -n "${thru_pid:-}" ]] && kill -9 "$thru_pid" 2>/dev/null || true
    [[ -n "${jackd_pid:-}" ]] && kill "$jackd_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    thru_pid= jackd_pid=
    pgrep -x jackd >/dev/null || rm -rf /dev/shm/jack* 2>/dev/null || true
}

stamped_recorder() {
    "$(command -v clang || command -v cc)" -O2 -o "$1/jack_stamped_rec" Tests/Tools/jack_stamped_rec.c -ljack
}

impulse_sounds() {
    python3 - "$1" <<'PY'
import struct, sys, wave
for name, value in (("bell.wav", -24000), ("beat.wav", 8000)):
    f = wave.open(f"{sys.argv[1]}/{name}", "wb"); f.setnchannels(1); f.setsampwidth(2); f.setframerate(48000)
    f.writeframes(struct.pack("<h", value)); f.close()
PY
}
