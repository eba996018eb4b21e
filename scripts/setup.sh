#!/usr/bin/env bash
# Installs what subrecon needs on a fresh Debian machine, once: the system libraries it links
# (SQLite, libcurl with OpenSSL, zlib for Apple's gzip reports), the time-zone database (Apple's report
# days are Pacific time) and pkg-config to find them. Sourced by scripts/demo.sh and
# scripts/test.sh; safe to run again (installs only what is missing).
set -euo pipefail

bash "$(dirname "${BASH_SOURCE[0]}")/install-packages.sh" \
  libsqlite3-dev libcurl4-openssl-dev zlib1g-dev tzdata pkg-config ca-certificates openssl

if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH" && break
  done
fi
command -v swift >/dev/null 2>&1 || { echo "setup: Swift 6 is not installed (expected on PATH or in /opt/swift)" >&2; exit 1; }

# The demo, the tests and the benchmark's smoke build into .build without debug information (the
# scripts never run a debugger; it shortens the first build: docs/performance.md, "Building the
# package"). The demo also leaves out the editors' index, which shortens it again, and builds in
# .build-demo; the tests need that index (test discovery reads it), so scripts/test.sh compiles the
# package in .build with it, and bench-smoke reuses the tests' build.
debug_build_flags=(-debug-info-format none)
demo_build_flags=("${debug_build_flags[@]}" --disable-index-store)

# The manual page, so `man subrecon` works once the binary is installed (README, "Install"):
# docs/man/subrecon.1 (every command's help and examples on one page; scripts/man-page.sh
# regenerates it) into the local man pages, when it is missing or older. Not being able to is a
# warning, never a failure: the demo and the tests do not need it.
man_page="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/docs/man/subrecon.1"
man_dir=/usr/local/share/man/man1
if [ -f "$man_page" ] && ! cmp -s "$man_page" "$man_dir/subrecon.1"; then
  man_sudo=()
  [ "$(id -u)" -eq 0 ] || man_sudo=(sudo -n)
  "${man_sudo[@]}" install -D -m 0644 "$man_page" "$man_dir/subrecon.1" 2>/dev/null ||
    echo "setup: could not install the man page; as root: install -D -m 0644 $man_page $man_dir/subrecon.1" >&2
fi
