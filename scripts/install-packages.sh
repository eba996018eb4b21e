#!/usr/bin/env bash
# Installs the named Debian packages that are not installed yet, with apt-get (through sudo when not
# root); does nothing when all are. Used by scripts/setup.sh (what every command needs) and by
# scripts/postgres-test-cluster.sh (PostgreSQL, for the tests only).
set -euo pipefail

need=()
for package in "$@"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || need+=("$package")
done
[ ${#need[@]} -gt 0 ] || exit 0
echo "setup: installing ${need[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
