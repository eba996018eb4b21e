#!/usr/bin/env bash
# The second command: installs what is missing, builds, and runs the whole test suite
# (unit tests first, then integration tests over loopback against the simulator and the built binary),
# with a throwaway PostgreSQL for the PostgreSQL store (scripts/postgres-test-cluster.sh), removed at
# the end whatever happened. No PostgreSQL, no tests: a failed install or start fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# Headless Chromium for the dashboard's browser test (DashboardBrowserTests), and Debian's ISO 3166 table
# (iso-codes) that CountryCodeTests checks subrecon's storefront mapping against: tests only.
bash scripts/install-packages.sh chromium iso-codes
# The standard-webhooks project's own Python verifier, which checks our webhook signatures (tests only).
bash scripts/standardwebhooks-venv.sh
# Exports SUBRECON_TEST_POSTGRES_URL, _PASSWORD_FILE, _CTL and _DIR for the tests.
postgres_env=$(bash scripts/postgres-test-cluster.sh start)
eval "$postgres_env"
trap 'bash scripts/postgres-test-cluster.sh stop "$SUBRECON_TEST_POSTGRES_DIR"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
swift build --build-tests "${debug_build_flags[@]}"
# A small smoke of the benchmark, so it can't rot (figures only, never a pass/fail on speed).
bash scripts/bench-smoke.sh
# The end-to-end tests run the binary built above; tell them where it is.
export SUBRECON_BINARY="$PWD/.build/debug/subrecon"
swift test --skip-build "${debug_build_flags[@]}" "$@"
# A fuzz smoke (docs/fuzzing.md): every parser of outside input under libFuzzer and AddressSanitizer
# for 20 s each; a crash, leak, hang or sanitizer report fails the run. The whole suite only (CI),
# not a run narrowed with --filter.
if [ $# -eq 0 ]; then bash scripts/fuzz.sh all 20; fi
