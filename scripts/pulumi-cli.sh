#!/usr/bin/env bash
# Builds the Pulumi CLI from the Go module proxy into a cache folder outside the repository, once per
# version, and prints the folder that holds it: the pinned version, the one PULUMI_CLI_VERSION names,
# or with PULUMI_CLI_VERSION=newest the newest the proxy serves (asked on every run). The CLI's own
# go.mod has replace directives, so `go install pkg@version` refuses it: we build from a throwaway
# main module instead.
#
# For the pinned version (or when PULUMI_LANGHOST_VERSION names one) it also tries the official
# Node.js language host (module sdk/nodejs/cmd/pulumi-language-nodejs/v3, no tags: the
# pseudo-version of the commit behind pkg/v3.259.0). The proxy answers 403 for that
# module (docs/real-cli.md), so when it is refused the refusal is printed to stderr and the test
# harness falls back to our own language host, scripts/langhost/pulumi-language-nodejs.
set -euo pipefail

pinned=v3.259.0
version="${PULUMI_CLI_VERSION:-$pinned}"
if [ "$version" = newest ]; then
  command -v go >/dev/null || { echo "pulumi-cli.sh: go is not installed" >&2; exit 1; }
  version="$(cd / && GOTOOLCHAIN=local go list -m -f '{{.Version}}' github.com/pulumi/pulumi/pkg/v3@latest)" \
    || { echo "pulumi-cli.sh: the Go module proxy did not name the newest github.com/pulumi/pulumi/pkg/v3" >&2; exit 1; }
fi
langhost_module="github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3"
# The pseudo-version is the commit of pkg/v3.259.0: it pairs with the pinned CLI only.
langhost_version="${PULUMI_LANGHOST_VERSION:-}"
[ -n "$langhost_version" ] || [ "$version" != "$pinned" ] || langhost_version=v3.0.0-20260820084410-a05d88f24d05
cache="${PULUMI_SVC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-svc}/pulumi-cli/$version"

if [ -x "$cache/bin/pulumi" ]; then
  echo "$cache/bin"
  exit 0
fi

command -v go >/dev/null || { echo "pulumi-cli.sh: go is not installed" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache/bin"
cd "$work"
export GOFLAGS=-mod=mod GOTOOLCHAIN=local
go mod init pulumi-svc-cli-build >&2
ldflags="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version"

# The official language host first, so a refusal is known before the long CLI build.
if [ -z "$langhost_version" ]; then
  echo "pulumi-cli.sh: no official Node.js language host paired with $version; the tests use scripts/langhost" >&2
elif go get "$langhost_module@$langhost_version" "github.com/pulumi/pulumi/pkg/v3@$version" \
    "github.com/pulumi/pulumi/sdk/v3@$version" >"$work/langhost.log" 2>&1; then
  go build -trimpath -ldflags "$ldflags" -o "$cache/bin/pulumi-language-nodejs.tmp" "$langhost_module" >&2
  mv "$cache/bin/pulumi-language-nodejs.tmp" "$cache/bin/pulumi-language-nodejs"
else
  echo "pulumi-cli.sh: the official Node.js language host cannot be had; using scripts/langhost instead:" >&2
  sed 's/^/  /' "$work/langhost.log" >&2
  rm -f go.sum
  printf 'module pulumi-svc-cli-build\n' > go.mod
fi

go get "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@$version" "github.com/pulumi/pulumi/sdk/v3@$version" >&2
go build -trimpath -ldflags "$ldflags" -o "$cache/bin/pulumi.tmp" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2
mv "$cache/bin/pulumi.tmp" "$cache/bin/pulumi"
echo "$cache/bin"
