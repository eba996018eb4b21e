#!/usr/bin/env bash
# Finance's export: the reports as dated CSV files in DIR, and the dashboard page (opens offline,
# fit to attach to an e-mail).  Usage: export-reports.sh DIR
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
echo "reports written to $dir (*-$day.csv, dashboard-$day.html)"
