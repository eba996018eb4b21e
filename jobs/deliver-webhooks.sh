#!/usr/bin/env bash
# What cron runs every minute where no `subrecon serve` delivers events continuously: POSTs the
# events that are due to each app's webhook URL (`subrecon webhooks deliver`), waits for retries
# that fall due within the next WEBHOOKS_MAX_SECONDS, then exits. Events are safe in the database
# whatever happens here: a run killed half-way, a receiver that is down, a night without this job,
# the next run delivers them, in order, with the same webhook-id and body (docs/webhooks.md).
# Exit codes: 0 nothing pending, or events still pending (subrecon's 1: their retries fall due
# later and a later run sends them; watch `subrecon status` or the subrecon_events_* metrics, not
# cron mail, for a receiver that stays down); 2 configuration (a URL without a secret, a malformed
# secret, plain http to a non-loopback host ...), which prints one line so cron mails it; anything
# else passed through. A run that finds the previous one still going (a large backlog, a slow
# receiver) leaves it alone and exits 0.
#   SUBRECON_ENV_FILE     settings file to load (default /etc/subrecon/subrecon.env)
#   SUBRECON_BIN          the binary (default: subrecon on PATH)
#   WEBHOOKS_LOG_FILE     one line per run (default /var/log/subrecon/webhooks.log; not
#                         SUBRECON_LOG_FILE, which is the nightly log)
#   WEBHOOKS_LOCK_FILE    held while a run delivers (default: the log file's name, .lock)
#   WEBHOOKS_MAX_SECONDS  how long a run waits for retries falling due (default 50: a run a minute)
set -euo pipefail
env_file="${SUBRECON_ENV_FILE:-/etc/subrecon/subrecon.env}"
if [ -f "$env_file" ]; then set -a; source "$env_file"; set +a; fi
# Only warnings and errors in the .err file (cron mails a job's own line when it fails); set
# SUBRECON_LOG_LEVEL=notice in the settings file for progress lines there too.
export SUBRECON_LOG_LEVEL="${SUBRECON_LOG_LEVEL:-warning}"
bin="${SUBRECON_BIN:-subrecon}"
log_file="${WEBHOOKS_LOG_FILE:-/var/log/subrecon/webhooks.log}"
lock_file="${WEBHOOKS_LOCK_FILE:-${log_file%.log}.lock}"
max_seconds="${WEBHOOKS_MAX_SECONDS:-50}"
mkdir -p "$(dirname "$log_file")" "$(dirname "$lock_file")"

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# One run at a time on this host (the lock goes with the process, also on kill -9). Workers on
# other hosts may run at the same time: on PostgreSQL they share the work through leases.
exec 9>>"$lock_file"
if ! flock --nonblock 9; then
    echo "$started skipped: the previous run still holds $lock_file" >>"$log_file"
    exit 0
fi
set +e
output=$("$bin" webhooks deliver --max-seconds "$max_seconds" "$@" 2>>"${log_file%.log}.err")
status=$?
set -e
summary=$(printf '%s\n' "$output" | tail -n 1)
echo "$started exit=$status ${summary:-no summary (see ${log_file%.log}.err)}" >>"$log_file"
case "$status" in
    0 | 1) exit 0 ;;
    *)
        echo "subrecon webhooks deliver exited $status: ${summary:-see ${log_file%.log}.err}" >&2
        exit "$status"
        ;;
esac
