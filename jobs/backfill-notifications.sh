#!/usr/bin/env bash
# What cron runs every day: recovers App Store Server Notifications the receiver missed in the last
# two days (receiver down, a deploy, a bug) from Apple's notification history. Overlapping spans are
# harmless: a notification stored before only counts another delivery. Apple retries a failed
# delivery only in production and only five times over about 6.5 days (the sandbox not at all), so
# this, not Apple's retries, is what makes a lost notification arrive within a day.
#   SUBRECON_ENV_FILE     settings file to load (default /etc/subrecon/subrecon.env)
#   SUBRECON_BIN          the binary (default: subrecon on PATH)
#   BACKFILL_LOG_FILE     where the one-line summaries go (default /var/log/subrecon/backfill.log;
#                         not SUBRECON_LOG_FILE, which is the nightly log)
#   BACKFILL_DAYS         how far back to ask (default 2)
#   BACKFILL_ENVIRONMENTS which histories to ask (default "production"; add "sandbox" if used)
set -euo pipefail
env_file="${SUBRECON_ENV_FILE:-/etc/subrecon/subrecon.env}"
if [ -f "$env_file" ]; then set -a; source "$env_file"; set +a; fi
# Only warnings and errors in the .err file (cron mails a job's own line when it fails); set
# SUBRECON_LOG_LEVEL=notice in the settings file for progress lines there too.
export SUBRECON_LOG_LEVEL="${SUBRECON_LOG_LEVEL:-warning}"
bin="${SUBRECON_BIN:-subrecon}"
log_file="${BACKFILL_LOG_FILE:-/var/log/subrecon/backfill.log}"
days="${BACKFILL_DAYS:-2}"
mkdir -p "$(dirname "$log_file")"

since=$(date -u -d "$days days ago" +%Y-%m-%dT%H:%M:%SZ)
code=0
for environment in ${BACKFILL_ENVIRONMENTS:-production}; do
    started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    set +e
    summary=$("$bin" notifications backfill --since "$since" --environment "$environment" "$@" 2>>"${log_file%.log}.err")
    status=$?
    set -e
    echo "$started $environment exit=$status ${summary:-no summary (see ${log_file%.log}.err)}" >>"$log_file"
    if [ "$status" -ne 0 ]; then
        echo "subrecon notifications backfill ($environment) exited $status: ${summary:-see ${log_file%.log}.err}" >&2
        code=$status
    fi
done
exit "$code"
