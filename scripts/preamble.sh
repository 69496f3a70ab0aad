# Sourced first by every script here: strict mode, the repository as the
# working directory, and `build`, which stops the script on a failed build
# (a stale binary from an earlier build is never run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# build [--no-warnings] ARGS...: `swift build ARGS`, printing the errors and
# the warnings in the project's own sources; exits 1 if the build fails, and
# with --no-warnings if it warns.
build() {
    local strict=no
    if [[ "${1:-}" == --no-warnings ]]; then strict=yes; shift; fi
    local log status=0
    log=$(mktemp)
    swift build "$@" >"$log" 2>&1 || status=$?
    local own="^$PWD/(Sources|Tests)/.*(warning|error):"
    if ((status != 0)); then
        grep -E 'error:' "$log" >&2 || tail -40 "$log" >&2
        rm -f "$log"
        echo "$(basename "$0"): 'swift build $*' failed (exit $status)" >&2
        exit 1
    fi
    if grep -E "$own" "$log" >&2 && [[ $strict == yes ]]; then
        rm -f "$log"
        echo "$(basename "$0"): the build has warnings (above)" >&2
        exit 1
    fi
    rm -f "$log"
}

# release_binary: prints the metronome to play live: $METRONOME_BINARY when set (CI's, from the
# Debian package), or .build/release's, built first.
release_binary() {
    if [[ -n ${METRONOME_BINARY:-} ]]; then
        echo "$METRONOME_BINARY"
    else
        build -c release --product metronome >&2
        echo "$PWD/.build/release/metronome"
    fi
}
