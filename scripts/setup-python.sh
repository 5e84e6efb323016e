#!/usr/bin/env bash
# Creates the project's Python environment at .venv (or $SEER_VENV) with Debian's python3 and
# installs the pinned packages of scripts/python-requirements.txt (PyTorch and its CUDA
# libraries, ~5 GB). Idempotent: when every pinned version is already installed it does nothing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${SEER_VENV:-$root/.venv}"
requirements="$root/scripts/python-requirements.txt"
python=/usr/bin/python3

# Checks the installed distributions against the pins without starting pip (a fraction of a
# second); exits 1 naming the first mismatch.
pins_installed() {
  "$venv/bin/python" - "$requirements" <<'PY'
import re, sys
from importlib import metadata
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, version = re.split(r"==", line)
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        have = None
    if have != version:
        print(f"setup-python: {name} {have or 'missing'}, want {version}")
        sys.exit(1)
PY
}

if [ -x "$venv/bin/python" ] && pins_installed >/dev/null; then
  exit 0
fi
if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
  "$root/scripts/setup.sh"  # brings python3-venv
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "setup-python: creating $venv"
  "$python" -m venv "$venv"
fi
echo "setup-python: installing $(grep -c '==' "$requirements") pinned packages into $venv"
"$venv/bin/python" -m pip install --quiet --no-input --disable-pip-version-check \
  -r "$requirements"
pins_installed
