#!/usr/bin/env bash
# The first command: installs what is missing, builds, and runs `subrecon demo` (the full nightly
# path against the built-in App Store simulator; no secret, no network).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# A debug build: the demo needs no optimised code, a debug build of the dependencies takes a fraction
# of a release build's time, and the test command (scripts/test.sh) builds into the same .build/debug.
swift build --product subrecon "${debug_build_flags[@]}"
exec .build/debug/subrecon demo "$@"
