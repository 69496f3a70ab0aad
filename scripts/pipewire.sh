# Sourced by scripts/soak (--pipewire) and by hand: a private PipeWire
# session without a sound card. A null sink (48 kHz, stereo) is the default
# device; ALSA's `default` and `pipewire` devices (pipewire-alsa) and `pulse`
# (libasound2-plugins, into pipewire-pulse) play into it, and a recorder
# stamped by the graph's clock (Tests/Tools/pw_stamped_rec.c) records what
# reaches it.
#
#   pipewire_start WORK   XDG_RUNTIME_DIR and XDG_CONFIG_HOME under WORK, a session
#                         bus, pipewire, wireplumber and pipewire-pulse; returns once
#                         the sink is the default and pipewire-pulse answers
#   pipewire_record FILE [SECONDS]
#                         records the sink's monitor to FILE (a float WAV, mono, 48 kHz),
#                         at most SECONDS (600) of graph time, in the background, each
#                         cycle at the graph clock's position (a cycle the recorder missed
#                         is silence, not a shift); sets recorder_pid; returns once it is
#                         linked and running. SIGINT finishes the file, and the recorder's
#                         stderr (FILE.log) says how many frames it missed.
#   pipewire_stop         stops what pipewire_start started
#
# As root, PipeWire needs nothing more: the runtime directory is XDG_RUNTIME_DIR.

pipewire_sink=metronome_null_sink

pipewire_start() {
    local work=$1
    export XDG_RUNTIME_DIR=$work/runtime XDG_CONFIG_HOME=$work/config
    mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME/pipewire/pipewire.conf.d"
    chmod 700 "$XDG_RUNTIME_DIR"
    cat > "$XDG_CONFIG_HOME/pipewire/pipewire.conf.d/10-null-sink.conf" <<CONF
context.objects = [
    { factory = adapter
      args = {
          factory.name     = support.null-audio-sink
          node.name        = "$pipewire_sink"
          node.description = "Null sink for the metronome's tests"
          media.class      = "Audio/Sink"
          audio.rate       = 48000
          audio.position   = [ FL FR ]
      }
    }
]
CONF
    local bus
    # Its socket in the session's folder, removed with it (under /tmp, a killed bus leaves its socket).
    bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1 --address="unix:dir=$XDG_RUNTIME_DIR")
    export DBUS_SESSION_BUS_ADDRESS=${bus%%$'\n'*}
    dbus_pid=${bus##*$'\n'}
    pipewire >"$work/pipewire.log" 2>&1 &
    pipewire_pid=$!
    until pw-cli info 0 >/dev/null 2>&1; do sleep 0.05; done
    wireplumber >"$work/wireplumber.log" 2>&1 &
    wireplumber_pid=$!
    pipewire-pulse >"$work/pipewire-pulse.log" 2>&1 &
    pulse_pid=$!
    local id
    until id=$(pipewire_sink_id) && [[ -n "$id" ]] && wpctl set-default "$id" 2>/dev/null; do sleep 0.05; done
    until wpctl inspect @DEFAULT_AUDIO_SINK@ 2>/dev/null | grep -q "node.name = \"$pipewire_sink\""; do sleep 0.05; done
    until pactl info 2>/dev/null | grep -q "Default Sink: $pipewire_sink"; do sleep 0.05; done
}

# The sink's node id, from wpctl status.
pipewire_sink_id() {
    wpctl status 2>/dev/null | sed -n "s/^[^0-9]*\([0-9]\+\)\. Null sink for the metronome.*/\1/p" | head -n 1
}

pipewire_record() {
    local file=$1 seconds=${2:-600} recorder
    recorder=$(dirname "$file")/pw_stamped_rec
    "$(command -v clang || command -v cc)" -O2 -o "$recorder" "$(dirname "${BASH_SOURCE[0]}")/../Tests/Tools/pw_stamped_rec.c" \
        $(pkg-config --cflags --libs libpipewire-0.3 sndfile)
    "$recorder" "$pipewire_sink" "$seconds" "$file" >"$file.out" 2>"$file.log" &
    recorder_pid=$!
    until grep -qs recording "$file.out"; do
        kill -0 "$recorder_pid" 2>/dev/null || { echo "pipewire_record: the recorder ended: $(cat "$file.log")" >&2; return 1; }
        sleep 0.05
    done
}

pipewire_stop() {
    local pid
    for pid in ${recorder_pid:-} ${pulse_pid:-} ${wireplumber_pid:-} ${pipewire_pid:-}; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in ${recorder_pid:-} ${pulse_pid:-} ${wireplumber_pid:-} ${pipewire_pid:-}; do
        wait "$pid" 2>/dev/null || true
    done
    [[ -n "${dbus_pid:-}" ]] && kill "$dbus_pid" 2>/dev/null || true
    recorder_pid= pulse_pid= wireplumber_pid= pipewire_pid= dbus_pid=
}
