#!/usr/bin/env bash
# Support's command: re-verify one user now and show before/after.  Usage: reverify-user.sh USER_ID [--dry-run]
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 USER_ID [--dry-run]" >&2; exit 2; }
env_file="${SUBRECON_ENV_FILE:-/etc/subrecon/subrecon.env}"
if [ -f "$env_file" ]; then set -a; source "$env_file"; set +a; fi
exec "${SUBRECON_BIN:-subrecon}" user "$@"
