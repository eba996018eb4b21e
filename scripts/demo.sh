#!/usr/bin/env bash
# The first command: installs what is missing, builds, and runs `subrecon demo` (the full nightly
# path against the built-in App Store simulator; no secret, no network).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# A debug build: the demo needs no optimised code, and a debug build of the dependencies takes a
# fraction of a release build's time (the flags: scripts/setup.sh). In a folder of its own, so the
# demo's build and the tests' (whose flags differ) never rebuild each other.
swift build --scratch-path .build-demo --product subrecon "${demo_build_flags[@]}"
exec .build-demo/debug/subrecon demo "$@"
