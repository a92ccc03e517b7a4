import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { installedProject } from "../../src/engine/installed";
import { useProgram } from "../support/program";

// A user's project: pulumi-svc installed under node_modules (a copy of what `npm pack` ships), the
// SDK and our dependencies beside it, and a program that knows nothing of this repository.
let installed: ReturnType<typeof installedProject> | undefined;
const project = () => installed!.dir;

const PROGRAM = `
const svc = require("pulumi-svc");
const digits = new svc.secrets.transform.Alphabet("digits", { name: "digits", alphabet: "0123456789" });
new svc.secrets.transform.Template("ssn", { name: "ssn", pattern: "(\\\\d{3})-(\\\\d{4})", alphabet: digits.name });
exports.alphabet = digits.alphabet;
`;

const { run, stateText } = useProgram({
  program: () => path.join(project(), "index.js"), cwd: project, project: "installed", services: ["secrets"],
  setup: () => {
    installed = installedProject();
    fs.writeFileSync(path.join(project(), "index.js"), PROGRAM);
  },
  teardown: () => installed?.remove(),
});

describe("pulumi-svc installed under node_modules", () => {
  it("stores each provider as a one-line require of its module, and the host loads it", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => `${s.op} ${s.name}`)).toEqual(["create digits", "create ssn"]);
    const state = JSON.parse(stateText());
    const providers: string[] = state.resources.map((res: { inputs: { __provider: string } }) => res.inputs.__provider);
    expect(providers).toHaveLength(2);
    expect(providers[0]).toContain('require("pulumi-svc/dist/src/providers/secrets/TransformAlphabet.js")');
    expect(providers[1]).toContain('require("pulumi-svc/dist/src/providers/secrets/TransformTemplate.js")');
    for (const p of providers) expect(Buffer.byteLength(p)).toBeLessThan(400);
    expect(providers.join("")).not.toContain(project()); // no machine-specific path in state
  });

  it("destroys through the same providers", async () => {
    const r = await run("destroy");
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => s.op)).toEqual(["delete", "delete"]);
  });
});
