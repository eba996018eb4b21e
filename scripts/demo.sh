#!/usr/bin/env bash
# The first command: installs what is missing, builds, and runs `subrecon demo` (the full nightly
# path against the built-in App Store simulator; no secret, no network).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release --product subrecon
exec .build/release/subrecon demo "$@"
