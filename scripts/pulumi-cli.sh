#!/usr/bin/env bash
# Builds the Pulumi CLI from the Go module proxy into a cache folder outside the repository, once per
# version, and prints the folder that holds it: the pinned version, the one PULUMI_CLI_VERSION names,
# or with PULUMI_CLI_VERSION=newest the newest the proxy serves (asked on every run). The CLI's own
# go.mod has replace directives, so `go install pkg@version` refuses it: we build from a throwaway
# main module instead.
#
# It puts beside `pulumi` what a Pulumi installation ships with it, so that the folder works on PATH
# as a user's does: for the pinned version, Pulumi's official Node.js language host, built from the
# source in ../shared/tools/official-langhost (its Go module is refused by the proxy:
# docs/real-cli.md); and the dynamic-provider plugin script `pulumi-resource-pulumi-nodejs` from the
# installed @pulumi/pulumi. Without ../shared the tests fall back to our own host, langhost.
set -euo pipefail

pinned=v3.259.0
version="${PULUMI_CLI_VERSION:-$pinned}"
if [ "$version" = newest ]; then
  command -v go >/dev/null || { echo "pulumi-cli.sh: go is not installed" >&2; exit 1; }
  version="$(cd / && GOTOOLCHAIN=local go list -m -f '{{.Version}}' github.com/pulumi/pulumi/pkg/v3@latest)" \
    || { echo "pulumi-cli.sh: the Go module proxy did not name the newest github.com/pulumi/pulumi/pkg/v3" >&2; exit 1; }
fi
cache="${PULUMI_SVC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-svc}/pulumi-cli/$version"

here="$(cd "$(dirname "$0")/.." && pwd)"

# What an installation has beside `pulumi` (see above); cheap, so done on every call.
complete() {
  local official="$here/../shared/tools/official-langhost/build.sh"
  if [ "$version" = "$pinned" ] && [ ! -x "$cache/bin/pulumi-language-nodejs" ]; then
    if [ -f "$official" ]; then
      local built
      if built="$(bash "$official")"; then
        cp "$built/pulumi-language-nodejs" "$cache/bin/pulumi-language-nodejs.tmp"
        mv "$cache/bin/pulumi-language-nodejs.tmp" "$cache/bin/pulumi-language-nodejs"
      else
        echo "pulumi-cli.sh: ../shared/tools/official-langhost/build.sh failed; the tests use langhost" >&2
      fi
    else
      echo "pulumi-cli.sh: no ../shared/tools/official-langhost: the tests use langhost" >&2
    fi
  fi
  local plugin="$here/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"
  if [ -f "$plugin" ] && [ ! -x "$cache/bin/pulumi-resource-pulumi-nodejs" ]; then
    cp "$plugin" "$cache/bin/pulumi-resource-pulumi-nodejs"
    chmod +x "$cache/bin/pulumi-resource-pulumi-nodejs"
  fi
}

if [ -x "$cache/bin/pulumi" ]; then
  complete
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
go get "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@$version" "github.com/pulumi/pulumi/sdk/v3@$version" >&2
go build -trimpath -ldflags "$ldflags" -o "$cache/bin/pulumi.tmp" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2
mv "$cache/bin/pulumi.tmp" "$cache/bin/pulumi"
complete
echo "$cache/bin"
