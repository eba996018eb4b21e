#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests (scripts/test.sh runs one around `swift test`):
# initdb into a temporary folder, a server on a free port of 127.0.0.1, a role and a database for
# subrecon; `stop` removes it all. Installs Debian's postgresql package when no server is installed.
#
#   eval "$(scripts/postgres-test-cluster.sh start)"       # prints the exports below, nothing else
#   swift test
#   scripts/postgres-test-cluster.sh stop "$SUBRECON_TEST_POSTGRES_DIR"
#   scripts/postgres-test-cluster.sh env DIR                # the exports again, for another shell
#
#   SUBRECON_TEST_POSTGRES_URL            postgres://subrecon@127.0.0.1:PORT/subrecon_test
#   SUBRECON_TEST_POSTGRES_PASSWORD_FILE  the role's password (first line), mode 0600, owned by the
#                                         user who ran start
#   SUBRECON_TEST_POSTGRES_CTL            DIR/ctl: `stop [immediate|fast]` (default immediate, as a
#                                         crash), `start`, `status`: the same server on the same port,
#                                         for tests that take the database away mid-run
#   SUBRECON_TEST_POSTGRES_DIR            the folder, for stop
#
# The role `subrecon` owns subrecon_test and may create databases (one per test). Port, socket and
# data are the cluster's own, so several clusters (several test runs) can live side by side.
# As root (CI) the server runs as the unprivileged `postgres` user, since initdb refuses root.
# The cluster's collation is ICU en-US, as on a typical company server, so a report that orders
# text without COLLATE "C" sorts differently from SQLite here too, not only in production.
# SUBRECON_TEST_POSTGRES_BINDIR picks the server's binaries (default: the newest of Debian's
# /usr/lib/postgresql/*/bin).
set -euo pipefail

script="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
marker=cluster.env # in every folder this script made; `stop` removes nothing without it

die() {
  echo "postgres-test-cluster: $*" >&2
  exit 1
}

# The newest installed server's binaries, or nothing.
find_bindir() {
  if [ -n "${SUBRECON_TEST_POSTGRES_BINDIR:-}" ]; then
    echo "$SUBRECON_TEST_POSTGRES_BINDIR"
    return
  fi
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && { echo "$dir"; return; }
  done
}

# Runs a command as the server's user: `postgres` when we are root, else ourselves; from / so that
# a folder that user may not enter (a root-owned checkout) is never its working directory; with
# fd 3 (start's exports) closed, since a server holding it open would keep `$(… start)` waiting.
as_server() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@") 3>&-
  else
    (cd / && "$@") 3>&-
  fi
}

# Loads a cluster's settings (BINDIR, PORT, DATA, LOG) from its folder.
load() {
  dir="$1"
  [ -f "$dir/$marker" ] || die "$dir is not a test cluster made by this script (no $marker)"
  # shellcheck source=/dev/null
  source "$dir/$marker"
}

server_running() {
  as_server "$BINDIR/pg_ctl" status -D "$DATA" >/dev/null 2>&1
}

server_start() {
  server_running && return 0
  as_server "$BINDIR/pg_ctl" start -D "$DATA" -l "$LOG" -w -t 60 -s
}

server_stop() {
  local mode="${1:-immediate}"
  case "$mode" in immediate | fast) ;; *) die "stop takes immediate or fast, not $mode" ;; esac
  server_running || return 0
  as_server "$BINDIR/pg_ctl" stop -D "$DATA" -m "$mode" -w -t 60 -s
}

print_env() {
  printf 'export SUBRECON_TEST_POSTGRES_URL=%q\n' "postgres://subrecon@127.0.0.1:$PORT/subrecon_test"
  printf 'export SUBRECON_TEST_POSTGRES_PASSWORD_FILE=%q\n' "$dir/password"
  printf 'export SUBRECON_TEST_POSTGRES_CTL=%q\n' "$dir/ctl"
  printf 'export SUBRECON_TEST_POSTGRES_DIR=%q\n' "$dir"
}

# A port nobody listens on, below the kernel's range for outgoing connections (so no client socket
# holds it either). The server's own bind is the real test: start tries again when it fails.
candidate_port() {
  local low port
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$low" -gt 16000 ] || low=32768
  while :; do
    port=$((15000 + RANDOM % (low - 15000)))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}

cmd_start() {
  exec 3>&1 1>&2 # stdout is for the exports alone (the caller evals it); everything else to stderr
  [ -n "$(find_bindir)" ] || bash "$(dirname "$script")/install-packages.sh" postgresql ||
    die "PostgreSQL is not installed and could not be installed (apt-get install postgresql)"
  BINDIR=$(find_bindir)
  [ -n "$BINDIR" ] && [ -x "$BINDIR/initdb" ] || die "no PostgreSQL server binaries found (initdb, pg_ctl)"
  if [ "$(id -u)" -eq 0 ]; then
    id -u postgres >/dev/null 2>&1 || die "running as root, but there is no postgres user to run the server"
  fi

  dir=$(mktemp -d "${TMPDIR:-/tmp}/subrecon-postgres.XXXXXX")
  local server="$dir/server"
  DATA="$server/data"
  LOG="$server/server.log"
  printf 'BINDIR=%q\nDATA=%q\nLOG=%q\n' "$BINDIR" "$DATA" "$LOG" >"$dir/$marker"
  started=0
  trap '[ "$started" = 1 ] || cmd_stop "$dir"' EXIT # a start that fails leaves nothing behind
  chmod 0711 "$dir" # the server's user passes through to its own folder below
  mkdir -m 0700 "$server"
  [ "$(id -u)" -ne 0 ] || chown postgres: "$server"

  as_server "$BINDIR/initdb" -D "$DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --locale=C --locale-provider=icu --icu-locale=en-US --no-sync --no-instructions \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  # Only the server's user, over the socket in its own 0700 folder, without a password; everyone
  # else over loopback with a password, as subrecon connects in production.
  as_server tee "$DATA/pg_hba.conf" >/dev/null <<EOF
local all postgres trust
host  all all 127.0.0.1/32 scram-sha-256
EOF
  echo "include = 'subrecon-test.conf'" | as_server tee -a "$DATA/postgresql.conf" >/dev/null

  local attempt port
  for attempt in $(seq 1 20); do
    port=$(candidate_port)
    # Tests only: fsync, synchronous commit and full-page writes off trade crash safety, which a
    # throwaway cluster does not need, for speed. Never on a database anyone keeps.
    as_server tee "$DATA/subrecon-test.conf" >/dev/null <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$server'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
password_encryption = 'scram-sha-256'
EOF
    as_server rm -f "$LOG"
    if as_server "$BINDIR/pg_ctl" start -D "$DATA" -l "$LOG" -w -t 60 -s; then
      PORT=$port
      break
    fi
    grep -q "could not bind\|Address already in use" "$LOG" 2>/dev/null ||
      { cat "$LOG" >&2 2>/dev/null || true; die "the server did not start"; }
    echo "postgres-test-cluster: port $port taken meanwhile, trying another" >&2
  done
  [ -n "${PORT:-}" ] || die "no free port found in $attempt attempts"
  printf 'PORT=%q\n' "$PORT" >>"$dir/$marker"

  local password
  password=$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')
  (umask 077 && echo "$password" >"$dir/password")
  as_server "$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$server" -p "$PORT" -U postgres -d postgres >/dev/null <<EOF
CREATE ROLE subrecon LOGIN CREATEDB PASSWORD '$password';
CREATE DATABASE subrecon_test OWNER subrecon;
EOF
  printf '#!/usr/bin/env bash\n# This test cluster'"'"'s server: stop [immediate|fast] | start | status (same port).\nexec bash %q server %q "$@"\n' \
    "$script" "$dir" >"$dir/ctl"
  chmod 0755 "$dir/ctl"

  # As the tests will connect: over TCP, by password, as subrecon.
  PGPASSWORD="$password" "$BINDIR/psql" -X -q -At -v ON_ERROR_STOP=1 \
    -d "postgres://subrecon@127.0.0.1:$PORT/subrecon_test" -c 'SELECT 1' >/dev/null ||
    die "the cluster is up but subrecon cannot log in over 127.0.0.1:$PORT"
  started=1
  echo "postgres-test-cluster: PostgreSQL $("$BINDIR/postgres" -V | awk '{print $3}') on 127.0.0.1:$PORT in $dir" >&2
  print_env >&3
}

cmd_stop() {
  dir="$1"
  [ -e "$dir" ] || return 0
  load "$dir"
  local pid=""
  [ -f "$DATA/postmaster.pid" ] && pid=$(head -1 "$DATA/postmaster.pid")
  server_stop immediate || true
  # pg_ctl failed or timed out: make sure our postmaster (and so its children) is gone anyway.
  if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$DATA"; then
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -rf -- "$dir"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; cmd_stop "$2" ;;
  env) [ $# -eq 2 ] || die "usage: $0 env DIR"; load "$2"; print_env ;;
  server) # DIR/ctl's entry: server DIR stop [immediate|fast] | start | status
    [ $# -ge 3 ] || die "usage: DIR/ctl stop [immediate|fast] | start | status"
    load "$2"
    case "$3" in
      stop) server_stop "${4:-immediate}" ;;
      start) server_start ;;
      status) server_running && echo running || { echo stopped; exit 3; } ;;
      *) die "DIR/ctl takes stop, start or status, not $3" ;;
    esac ;;
  *) die "usage: $0 start | stop DIR | env DIR" ;;
esac
