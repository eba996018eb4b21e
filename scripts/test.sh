#!/usr/bin/env bash
# The second command: installs what is missing, builds, and runs the whole test suite
# (unit tests first, then integration tests over loopback against the simulator and the built binary).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build --build-tests
# A small smoke of the benchmark, so it can't rot (figures only, never a pass/fail on speed).
bash scripts/bench-smoke.sh
# The end-to-end tests run the binary built above; tell them where it is.
export SUBRECON_BINARY="$PWD/.build/debug/subrecon"
swift test --skip-build "$@"
