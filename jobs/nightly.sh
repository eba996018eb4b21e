#!/usr/bin/env bash
# What cron runs every night: loads the environment file, runs `subrecon run`, writes one log line
# per run, and passes subrecon's exit code through (so cron's MAILTO hears about failures).
#   SUBRECON_ENV_FILE  settings file to load (default /etc/subrecon/subrecon.env)
#   SUBRECON_BIN       the binary (default: subrecon on PATH)
#   SUBRECON_LOG_FILE  where the one-line summaries go (default /var/log/subrecon/nightly.log)
set -euo pipefail
env_file="${SUBRECON_ENV_FILE:-/etc/subrecon/subrecon.env}"
if [ -f "$env_file" ]; then set -a; source "$env_file"; set +a; fi
# Only warnings and errors in the .err file (cron mails a job's own line when it fails); set
# SUBRECON_LOG_LEVEL=notice in the settings file for progress lines there too.
export SUBRECON_LOG_LEVEL="${SUBRECON_LOG_LEVEL:-warning}"
bin="${SUBRECON_BIN:-subrecon}"
log_file="${SUBRECON_LOG_FILE:-/var/log/subrecon/nightly.log}"
mkdir -p "$(dirname "$log_file")"

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
set +e
summary=$("$bin" run "$@" 2>>"${log_file%.log}.err")
code=$?
set -e
echo "$started exit=$code ${summary:-no summary (see ${log_file%.log}.err)}" >>"$log_file"
[ "$code" -eq 0 ] || echo "subrecon run exited $code: ${summary:-see ${log_file%.log}.err}" >&2
exit "$code"
