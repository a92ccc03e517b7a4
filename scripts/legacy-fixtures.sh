#!/usr/bin/env bash
# Regenerates test/program/fixtures/legacy/ (the state test/program/legacy-state.test.ts loads):
# builds pulumi-svc at an old commit in a temporary git worktree outside this checkout, and with
# that build's emulator, engine double and provider deploys fixtures/legacy/program twice, from
# inside the old checkout and from a user's project with the old package installed. Not run by CI.
#
#   scripts/legacy-fixtures.sh [commit]      # default 5f9946a, the last commit before issue 23
set -euo pipefail

commit="${1:-5f9946a}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
full="$(git -C "$repo" rev-parse --verify "$commit^{commit}")"
work="$(mktemp -d)"
old="$work/pulumi-svc-${full:0:7}"
cleanup() {
  git -C "$repo" worktree remove --force "$old" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

git -C "$repo" worktree add --detach "$old" "$full" >&2
cp -a "$repo/node_modules" "$old/"
(cd "$old" && npm run build >&2)
node "$repo/scripts/legacy-fixtures.js" "$old" "$repo/test/program/fixtures/legacy" "$full"
