#!/usr/bin/env bash
# Finance's export: every report that needs no argument as a dated CSV file in DIR, and the
# dashboard page (opens offline, fit to attach to an e-mail). Where Apple's sales reports are
# fetched (SUBRECON_VENDOR_NUMBER set: jobs/fetch-apple-reports.sh), also the ledger matched against
# them; lost orders, or no day compared, make this job exit 1 and say why, so cron mails it.
# Quiet on success: cron mails whatever a job prints.
# Usage: export-reports.sh DIR
#   SUBRECON_ENV_FILE  settings file to load (default /etc/subrecon/subrecon.env)
#   SUBRECON_BIN       the binary (default: subrecon on PATH)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
env_file="${SUBRECON_ENV_FILE:-/etc/subrecon/subrecon.env}"
if [ -f "$env_file" ]; then set -a; source "$env_file"; set +a; fi
# Warnings and errors only (a report's progress is nobody's mail).
export SUBRECON_LOG_LEVEL="${SUBRECON_LOG_LEVEL:-warning}"
bin="${SUBRECON_BIN:-subrecon}"
dir="$1"
day=$(date -u +%Y-%m-%d)
mkdir -p "$dir"
# Every CSV kind of `subrecon report` but apple-parity (below): run-items and changes are the
# latest nightly run's, expiring the next 7 days.
for kind in subscriptions renewals runs run-items changes expiring unrecorded shared notifications revenue metrics events; do
  "$bin" report "$kind" --output "$dir/$kind-$day.csv"
done
"$bin" report dashboard --output "$dir/dashboard-$day.html"
[ -n "${SUBRECON_VENDOR_NUMBER:-}" ] || exit 0
# The last 35 Pacific days, the window in which Apple still reissues and late renewals still land.
until=$(TZ=America/Los_Angeles date +%Y-%m-%d)
since=$(TZ=America/Los_Angeles date -d "$until -35 days" +%Y-%m-%d)
set +e
"$bin" report apple-parity --since "$since" --until "$until" --output "$dir/apple-parity-$day.csv" 2>"$dir/apple-parity-$day.txt"
parity=$?
set -e
if [ "$parity" -ne 0 ]; then
  echo "apple-parity exited $parity: $(tr '\n' ' ' <"$dir/apple-parity-$day.txt")" >&2
  exit "$parity"
fi
