// Every example has its lifecycle test: test/cli/examples/<name>.test.ts (test/cli/example.ts) runs
// it under the real CLI and the engine double, one file an example so they run in parallel.
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { examples } from "./expectations";

it("finds the examples, each with its cli.json and its lifecycle test", () => {
  const all = examples();
  expect(all.map((e) => e.name)).toEqual(expect.arrayContaining(["directory", "identity", "keymgmt", "quickstart", "registry", "replication", "runs", "transform"]));
  for (const e of all) {
    expect(e.expectations, `examples/${e.name}/cli.json is missing (format: docs/contributing.md)`).toBeDefined();
    const test = path.join(__dirname, "examples", `${e.name}.test.ts`);
    expect(fs.existsSync(test) && fs.readFileSync(test, "utf8").includes(`describeExample("${e.name}"`), `${test} runs the example's lifecycle`).toBe(true);
  }
  expect(fs.readdirSync(path.join(__dirname, "examples")).sort()).toEqual(all.map((e) => `${e.name}.test.ts`).sort());
});
