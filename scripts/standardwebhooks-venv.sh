#!/usr/bin/env bash
# The independent Standard Webhooks verifier the tests check subrecon's signatures with: the
# standard-webhooks project's Python library (PyPI standardwebhooks 1.1.0, pure Python, no
# dependencies) in a virtual environment under .build, used by scripts/standardwebhooks-verify.py.
# Called by scripts/test.sh; safe to run again (does nothing when it is there). Prints nothing on success.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
venv=.build/standardwebhooks-venv
version=1.1.0
installed() {
  "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('standardwebhooks') != '$version')" 2>/dev/null
}
installed && exit 0
bash scripts/install-packages.sh python3 python3-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "standardwebhooks==$version"
installed || { echo "setup: standardwebhooks $version did not install into $venv" >&2; exit 1; }
