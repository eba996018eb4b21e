#!/usr/bin/env bash
# Finance's export: the reports as dated CSV files in DIR, and the dashboard page (opens offline,
# fit to attach to an e-mail). With Apple's sales reports stored (jobs/fetch-apple-reports.sh),
# also the ledger matched against them; lost orders make this job exit 1, so cron mails it.
# Usage: export-reports.sh DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
env_file="${SUBRECON_ENV_FILE:-/etc/subrecon/subrecon.env}"
if [ -f "$env_file" ]; then set -a; source "$env_file"; set +a; fi
bin="${SUBRECON_BIN:-subrecon}"
dir="$1"
day=$(date -u +%Y-%m-%d)
mkdir -p "$dir"
for kind in subscriptions renewals runs run-items revenue metrics; do
  "$bin" report "$kind" --output "$dir/$kind-$day.csv"
done
"$bin" report dashboard --output "$dir/dashboard-$day.html"
# The last 35 Pacific days, the window in which Apple still reissues and late renewals still land.
until=$(TZ=America/Los_Angeles date +%Y-%m-%d)
since=$(TZ=America/Los_Angeles date -d "$until -35 days" +%Y-%m-%d)
set +e
"$bin" report apple-parity --since "$since" --until "$until" --output "$dir/apple-parity-$day.csv" 2>"$dir/apple-parity-$day.txt"
parity=$?
set -e
echo "reports written to $dir (*-$day.csv, dashboard-$day.html, apple-parity-$day.csv)"
if [ "$parity" -ne 0 ]; then
  echo "apple-parity exited $parity: $(tr '\n' ' ' <"$dir/apple-parity-$day.txt")" >&2
  exit "$parity"
fi
