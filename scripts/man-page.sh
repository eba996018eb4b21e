#!/usr/bin/env bash
# Regenerates docs/man/subrecon.1, the manual page scripts/setup.sh installs (`man subrecon`), from
# the built binary's own help (every command, option and example on one page), with
# swift-argument-parser's generate-manual tool built from the package's checkout (offline). Run it
# after changing any command's help; HelpTextBinaryTests fails while the page misses a command or
# an option.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build --product subrecon "${debug_build_flags[@]}"
[ -d .build/checkouts/swift-argument-parser ] || swift package resolve
swift build --package-path .build/checkouts/swift-argument-parser --scratch-path .build/generate-manual \
  --product generate-manual "${debug_build_flags[@]}"
.build/generate-manual/debug/generate-manual .build/debug/subrecon --date "$(date -u +%Y-%m-%d)" \
  --authors "subrecon's maintainers" --output-directory - |
  # The tool fills every paragraph: examples become literal blocks (a command is never wrapped
  # or hyphenated), and blank lines paragraph breaks, as mdoc wants them.
  awk '
    /^Examples?( \(.*\))?:$/ { print ".Pp"; print; print ".Bd -literal -offset indent"; example = 1; next }
    example && /^  / { sub(/^  /, ""); print; next }
    example { print ".Ed"; example = 0 }
    /^$/ { print ".Pp"; next }
    { print }
    END { if (example) print ".Ed" }
  ' > docs/man/subrecon.1
echo "wrote docs/man/subrecon.1"
