#!/usr/bin/env bash
# What cron runs every day after Apple publishes (about 08:00 Pacific): downloads Apple's daily
# Summary Sales Reports of the last week and stores them for `subrecon report apple-parity`. The
# whole week is fetched again each day, not only yesterday: Apple withdraws and reissues daily
# reports, and a reissued day simply replaces the copy stored before. Days stored a week after
# they ended are final and not asked for again, so a longer window that was interrupted (or a
# first fetch of the last 90 days: APPLE_REPORTS_DAYS=90) asks only for what is missing.
#   SUBRECON_ENV_FILE       settings file to load (default /etc/subrecon/subrecon.env)
#   SUBRECON_BIN            the binary (default: subrecon on PATH)
#   APPLE_REPORTS_LOG_FILE  one summary line per fetch (default /var/log/subrecon/apple-reports.log)
#   APPLE_REPORTS_DAYS      how many days back to fetch (default 7)
set -euo pipefail
env_file="${SUBRECON_ENV_FILE:-/etc/subrecon/subrecon.env}"
if [ -f "$env_file" ]; then set -a; source "$env_file"; set +a; fi
# Only warnings and errors in the .err file (cron mails a job's own line when it fails); set
# SUBRECON_LOG_LEVEL=notice in the settings file for progress lines there too.
export SUBRECON_LOG_LEVEL="${SUBRECON_LOG_LEVEL:-warning}"
bin="${SUBRECON_BIN:-subrecon}"
log_file="${APPLE_REPORTS_LOG_FILE:-/var/log/subrecon/apple-reports.log}"
days="${APPLE_REPORTS_DAYS:-7}"
mkdir -p "$(dirname "$log_file")"

# Pacific-time days, as Apple's reports count them.
until=$(TZ=America/Los_Angeles date +%Y-%m-%d)
since=$(TZ=America/Los_Angeles date -d "$until -$days days" +%Y-%m-%d)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
set +e
output=$("$bin" apple-reports fetch --since "$since" --until "$until" "$@" 2>>"${log_file%.log}.err")
status=$?
set -e
summary=$(printf '%s\n' "$output" | tail -n 1)
echo "$started exit=$status ${summary:-no summary (see ${log_file%.log}.err)}" >>"$log_file"
if [ "$status" -ne 0 ]; then
    echo "subrecon apple-reports fetch exited $status: ${summary:-see ${log_file%.log}.err}" >&2
fi
exit "$status"
