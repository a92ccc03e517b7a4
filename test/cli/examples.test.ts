// Every example has its lifecycle test: test/cli/examples/<name>.test.ts (test/cli/example.ts) runs
// it under the real CLI and the engine double, one file an example so they run in parallel.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { examples, parseExpectations } from "./expectations";

it("finds the examples, each with its cli.json and its lifecycle test", () => {
  const all = examples();
  expect(all.map((e) => e.name)).toEqual(expect.arrayContaining(["directory", "identity", "keymgmt", "quickstart", "registry", "replication", "runs", "transform"]));
  for (const e of all) {
    expect(e.problem, `examples/${e.name}/cli.json`).toBeUndefined();
    expect(e.expectations, `examples/${e.name}/cli.json`).toBeDefined();
    const test = path.join(__dirname, "examples", `${e.name}.test.ts`);
    expect(fs.existsSync(test) && fs.readFileSync(test, "utf8").includes(`describeExample("${e.name}"`), `${test} runs the example's lifecycle`).toBe(true);
  }
  expect(fs.readdirSync(path.join(__dirname, "examples")).sort()).toEqual(all.map((e) => `${e.name}.test.ts`).sort());
});

// Planted: the loosenings of a cli.json that once dropped tests unseen (a lifecycle registers the
// out-of-band steps only for what outOfBand holds, and the skip only without it).
describe("a cli.json not of its shape is refused, naming the path", () => {
  const read = (name: string) => JSON.parse(fs.readFileSync(path.join(__dirname, "../../examples", name, "cli.json"), "utf8")) as Record<string, any>;
  const problem = (json: unknown) => parseExpectations(JSON.stringify(json), "cli.json").problem;

  it("a partial outOfBand ({}, or one step of the two) with the note gone", () => {
    const { outOfBandNote, ...runs } = read("runs");
    expect(outOfBandNote).toBeTruthy();
    expect(problem({ ...runs, outOfBand: {} })).toBe("cli.json: outOfBand.change: Invalid input: expected object, received undefined; outOfBand.delete: Invalid input: expected object, received undefined");
    const { outOfBand } = read("directory");
    expect(problem({ ...runs, outOfBand: { change: outOfBand.change } })).toBe("cli.json: outOfBand.delete: Invalid input: expected object, received undefined");
    expect(problem({ ...runs, outOfBand: { change: { ...outOfBand.change, request: undefined }, delete: outOfBand.delete } }))
      .toBe("cli.json: outOfBand.change.request: Invalid input: expected object, received undefined");
  });

  it("outOfBand deleted without a note saying why, or both given", () => {
    const { outOfBand, ...directory } = read("directory");
    expect(problem(directory)).toBe("cli.json: (the file): give either outOfBand (its change and its delete) or outOfBandNote (why the example has none), not both and not neither");
    expect(problem({ ...directory, outOfBand, outOfBandNote: "none" })).toBe("cli.json: (the file): give either outOfBand (its change and its delete) or outOfBandNote (why the example has none), not both and not neither");
    expect(problem({ ...directory, outOfBand, outOfBandNote: "" })).toMatch(/^cli\.json: outOfBandNote: /);
  });

  it("a key the lifecycle does not read, a step2 op it does not know, text that is no JSON", () => {
    const runs = read("runs");
    expect(problem({ ...runs, outofband: {} })).toBe('cli.json: (the file): Unrecognized key: "outofband"');
    expect(problem({ ...runs, step2: { deploy: { op: "replaced" } } })).toMatch(/^cli\.json: step2\.deploy\.op: Invalid option: expected one of /);
    expect(parseExpectations("{", "cli.json").problem).toMatch(/^cli\.json: /);
    expect(problem(runs)).toBeUndefined();
  });
});
