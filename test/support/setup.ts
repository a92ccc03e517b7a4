// Every test must assert something: a test that checks nothing passes whatever the code does.
import * as path from "node:path";
import { beforeEach, expect } from "vitest";
import { deferSdkPackages } from "../../src/engine/deferred";

// The SDK's packages that neither a test's process nor a provider host runs unless asked (npm's
// Arborist, TypeScript, js-yaml: src/engine/deferred.ts) load when first touched, as in the
// provider hosts and programs the engine double starts: each test file's process starts sooner.
deferSdkPackages(path.dirname(require.resolve("@pulumi/pulumi/package.json")));

beforeEach(() => {
  expect.hasAssertions();
});
