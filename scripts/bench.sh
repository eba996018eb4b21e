#!/usr/bin/env bash
# The benchmark (not a test): builds release, then runs the standard set and prints the figures —
# receipts/s, worker and simulator CPU, peak RSS, Apple calls, the ratio to the ideal and to the
# naive baseline, the due policy's calls and lags, and App Store Server API mode (latency, rate,
# CPU per subscription) — with PASS/MISS per target.
#   scripts/bench.sh                           # the whole set (~11 min on 2 cores, ~2 GB of temp disk)
#   scripts/bench.sh --memory-receipts 0       # without the 1,000,000-receipt memory run
#   scripts/bench.sh --no-server-api           # without the Server API runs (~2.5 min)
#   scripts/bench.sh --no-workers              # without the several-workers run on PostgreSQL (~40 s)
#   scripts/bench.sh --receipts 50000          # any `subrecon-bench all` option
# Single measurements: .build/release/subrecon-bench throughput|due-policy|transport|server-api|workers --help.
# The workers run needs a PostgreSQL: SUBRECON_BENCH_POSTGRES_URL (its role may CREATE DATABASE; password
# in SUBRECON_BENCH_POSTGRES_PASSWORD_FILE) or SUBRECON_TEST_POSTGRES_URL when set, else a throwaway
# cluster started here (scripts/postgres-test-cluster.sh) and removed at the end.
# BENCH_SCRATCH_PATH=DIR builds in DIR instead of .build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
scratch="${BENCH_SCRATCH_PATH:-.build}"
swift build -c release --scratch-path "$scratch" --product subrecon
swift build -c release --scratch-path "$scratch" --product subrecon-bench
bin="$(swift build -c release --scratch-path "$scratch" --show-bin-path)"
if [ -z "${SUBRECON_BENCH_POSTGRES_URL:-}${SUBRECON_TEST_POSTGRES_URL:-}" ] && [[ " $* " != *" --no-workers "* ]]; then
  eval "$(bash scripts/postgres-test-cluster.sh start)"
  trap 'bash scripts/postgres-test-cluster.sh stop "$SUBRECON_TEST_POSTGRES_DIR"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
fi
"$bin/subrecon-bench" all --subrecon "$bin/subrecon" "$@"
