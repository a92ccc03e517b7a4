// Preloaded by .ci/run, after compile-cache.cjs, into every Node process of both combinations: in
// the programs and provider hosts the Pulumi CLI starts, the SDK's packages that neither runs
// unless it serializes a function (npm's Arborist, TypeScript, js-yaml) are loaded when first
// touched, as they are in the hosts and programs this package starts itself
// (src/engine/deferred.ts). What runs is the same SDK and the same packages, each loaded at its
// first use instead of at the SDK's start: a program that serializes a function loads them then.
// Under the CLI a provider host was busy 0.37 s instead of 0.62 s, a program 1.01 s instead of
// 1.14 s (TypeScript is still loaded there: the SDK's runner reads the compiler options with it):
// docs/contributing.md#ci. Users' own runs are the CLI's as they are: this is the tests' only.
"use strict";
const path = require("path");

let deferred;
try {
  deferred = require(path.join(__dirname, "../dist/src/engine/deferred.js"));
} catch {
  // dist/ not built yet, or being written.
}
// Loading it defers a provider host's already (deferred.ts's last lines); a program's is asked for
// here only, so that a user's program that loads deferred.js (through pulumi-svc/testing) runs
// under the CLI as it would.
const sdk = deferred?.programSdk();
if (sdk !== undefined) deferred.deferSdkPackages(sdk);
