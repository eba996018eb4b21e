#!/usr/bin/env bash
# Installs what subrecon needs on a fresh Debian machine, once: the system libraries it links
# (SQLite, libcurl with OpenSSL) and pkg-config to find them. Sourced by scripts/demo.sh and
# scripts/test.sh; safe to run again (installs only what is missing).
set -euo pipefail

need=()
for package in libsqlite3-dev libcurl4-openssl-dev pkg-config ca-certificates openssl; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || need+=("$package")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH" && break
  done
fi
command -v swift >/dev/null 2>&1 || { echo "setup: Swift 6 is not installed (expected on PATH or in /opt/swift)" >&2; exit 1; }
