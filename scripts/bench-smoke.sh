#!/usr/bin/env bash
# CI's smoke of the benchmark, so it cannot rot: the whole standard set at tiny sizes on the debug
# build (well under a minute once built). Exits non-zero only when the benchmark itself breaks
# (a process fails, receipts go unrecorded), never on a figure: debug-build speed means nothing.
# BENCH_SCRATCH_PATH=DIR uses the build in DIR instead of .build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
scratch="${BENCH_SCRATCH_PATH:-.build}"
bin="$scratch/debug"
# No-ops after scripts/test.sh's build; here so a stale binary is never measured.
swift build --scratch-path "$scratch" --product subrecon "${debug_build_flags[@]}"
swift build --scratch-path "$scratch" --product subrecon-bench "${debug_build_flags[@]}"
echo "bench-smoke: debug build, tiny sizes: the figures and PASS/MISS below mean nothing"
# Server API mode: latency, rate and 0 ms runs, a few hundred receipts each. Several workers (the last
# part of `all`, ~3 s): 60 receipts on the PostgreSQL of SUBRECON_TEST_POSTGRES_URL, which
# scripts/test.sh starts before this; without one that part is skipped with a note.
"$bin/subrecon-bench" all --subrecon "$bin/subrecon" \
  --receipts 300 --latency-ms 20 --naive-sample 10 --memory-receipts 1000 --subscribers 100 --days 10 \
  --latency-receipts 200 --api-latency-ms 20 --rate-receipts 100 --zero-receipts 300 --workers-receipts 60
# Two apps, each with its own key and budget, shared by two workers (and verifyReceipt with no rate,
# the wall-time measurement), on the PostgreSQL scripts/test.sh started.
if [ -n "${SUBRECON_TEST_POSTGRES_URL:-}" ]; then
  "$bin/subrecon-bench" workers --subrecon "$bin/subrecon" --workers-receipts 60 --workers-apps 2 --worker-processes 2
  "$bin/subrecon-bench" workers --subrecon "$bin/subrecon" --workers-receipts 60 --worker-processes 2 \
    --workers-apple-api verify-receipt --workers-api-rate 0 --workers-simulator-rate-limit 0 --workers-latency-ms 100
else
  echo "bench-smoke: two-app workers skipped (no SUBRECON_TEST_POSTGRES_URL)"
fi
# The notification receiver under load for a second: 2 keep-alive connections, 600 signed
# notifications (each sent once; should the load run out of them it stops early,
# which it says), then the check that every 200 is one stored row. SQLite, and PostgreSQL when
# scripts/test.sh started one.
"$bin/subrecon-bench" receiver --subrecon "$bin/subrecon" --connections 2 --seconds 1 --generate 600 --subscribers 50 --history 1000
if [ -n "${SUBRECON_TEST_POSTGRES_URL:-}" ]; then
  "$bin/subrecon-bench" receiver --subrecon "$bin/subrecon" --connections 2 --seconds 1 --generate 600 --subscribers 50 --history 1000 --postgres
else
  echo "bench-smoke: receiver on PostgreSQL skipped (no SUBRECON_TEST_POSTGRES_URL)"
fi
# The money reports over a generated ledger (3,000 subscriptions: more than one PostgreSQL cursor
# page), on SQLite and, when scripts/test.sh started one, PostgreSQL; fails if the two stores'
# revenue or metrics differ by a byte.
"$bin/subrecon-bench" money --subrecon "$bin/subrecon" --subscriptions 3000 --months 12 --repeat 1
# Apple's sales reports against the ledger: a year of daily reports derived from 2,000 subscriptions
# (with lost orders, day-boundary shifts and periods Apple never billed), imported and matched on
# SQLite and, when scripts/test.sh started one, PostgreSQL; fails if the stores' parity CSVs differ
# by a byte or the report does not find exactly the lost orders added.
"$bin/subrecon-bench" apple-parity --subrecon "$bin/subrecon" --subscriptions 2000 --months 12 --repeat 1 \
  --lost-orders 40 --shifted 40 --ledger-only 10
# Webhook delivery (~10 s): 2,000 events to a loopback receiver answering at once, 160 to one
# answering in 100 ms, 2 s of continuous delivery at 100 events/s; SQLite, and PostgreSQL when
# scripts/test.sh started one. Fails if an event is lost or sent twice.
"$bin/subrecon-bench" webhooks --events 2000 --subscriptions 200 --slow-events 160 --slow-subscriptions 40 \
  --latency-seconds 2 --latency-rate 100
