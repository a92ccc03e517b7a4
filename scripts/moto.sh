#!/usr/bin/env bash
# Installs moto's server (PyPI `moto[server]`, pinned) into a virtualenv in the cache folder outside
# the repository, once, and prints the venv's bin folder. The tests start `moto_server` from there
# on a free port of 127.0.0.1: the S3 state backend (test/cli/backends.test.ts) and the CLI stacks'
# KMS key (test/support/kms.ts).
set -euo pipefail

version="${MOTO_VERSION:-5.2.5}"
venv="${PULUMI_SVC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-svc}/moto/$version"

# The marker is written last, so an interrupted install is started over.
if [ -f "$venv/installed" ] && [ -x "$venv/bin/moto_server" ]; then
  echo "$venv/bin"
  exit 0
fi

command -v python3 >/dev/null || { echo "moto.sh: python3 is not installed" >&2; exit 1; }
# In place: a venv's scripts name its absolute path, so it cannot be built elsewhere and moved.
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
python3 -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "moto[server]==$version" >&2
echo "moto[server]==$version" > "$venv/installed"
echo "$venv/bin"
