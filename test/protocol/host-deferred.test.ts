// The packages a provider host this package starts loads only when touched (src/engine/deferred.ts):
// every kind's create, read and delete from the kind table (a create's check for the kinds whose
// objects need a second cluster or PostgreSQL), through one real host, touches none of them; and
// touched through the SDK, one is the package itself.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFERRED } from "../../src/engine/deferred";
import { oneOfEachKind } from "../support/everyKind";
import { KIND_CASES } from "../support/kindCases";
import { hostChecked, urn, useHosts } from "../support/protocol";

const { emu, host } = useHosts({
  host: (emu) => ({ "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsRoot }),
});

/** The SDK the hosts run (the host's script is its). */
const SDK = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
/** What a loaded file's path holds when it is of a deferred package, or of the SDK's own module deferred (a relative request). */
const MARKERS = [...new Set(Object.entries(DEFERRED).flatMap(([file, requests]) => requests.map((r) =>
  r.startsWith(".") ? `/@pulumi/pulumi/${path.posix.join(path.posix.dirname(file), r)}/` : `/node_modules/${r}/`)))];
let probes = 0;

/**
 * What the host has loaded of the deferred packages, after running `touch` (a function's body,
 * given the SDK's folder), through a provider of the test's own whose check answers with both.
 */
async function inHost(touch = "return null;"): Promise<{ loaded: string[]; touched: unknown }> {
  const text = `// probe ${++probes}
exports.handler = () => ({
  async check() {
    const sdk = require("path").resolve(process.argv[1], "../../..");
    const touched = await (async (sdk) => { ${touch} })(sdk);
    const markers = ${JSON.stringify(MARKERS)};
    const loaded = new Set(Object.keys(require.cache).flatMap((f) => markers.filter((m) => f.includes(m))));
    return { inputs: { loaded: [...loaded].sort(), touched }, failures: [] };
  },
});`;
  const r = await host.check(`urn:pulumi:dev::proj::pulumi-nodejs:dynamic/probe:Probe::p${probes}`, {}, { __provider: text });
  return r.inputs as { loaded: string[]; touched: unknown };
}

describe("a provider host's deferred packages", { timeout: 180_000 }, () => {
  it("are not loaded at the host's start, nor by every kind's calls, through the kind table", async () => {
    expect((await inHost()).loaded).toEqual([]);
    for (const c of KIND_CASES) {
      await c.setup?.(emu);
      const name = `deferred-${c.kind.split(":")[1]!.toLowerCase()}`;
      const inputs = await hostChecked(host, c.kind, name, c.create(emu));
      const made = await host.create(urn(c.kind, name), inputs);
      const read = await host.read(urn(c.kind, name), made.id, made.outs, inputs);
      expect(read.id, c.kind).toBe(made.id);
      if (!c.noDelete) await host.delete(urn(c.kind, name), made.id, read.props, inputs);
    }
    // The kinds whose objects need a second cluster or PostgreSQL (their suites of their own): a create's check.
    for (const { kind, name, inputs } of (await oneOfEachKind(emu)).filter((r) => !KIND_CASES.some((c) => c.kind === r.kind))) {
      await hostChecked(host, kind, name, inputs);
    }
    expect((await inHost()).loaded).toEqual([]);
  });

  it("touched through the SDK (a function serialized, a package's code paths, the automation API), each is the package itself", async () => {
    const used = await inHost(`
      const pulumi = require(sdk);
      const text = (await pulumi.runtime.serializeFunction(() => 42)).text;
      const paths = await pulumi.runtime.computeCodePaths({ extraIncludePackages: ["zod"] });
      const shim = require(require("path").join(sdk, "typescript-shim.js")).version;
      const real = require(require.resolve("typescript/package.json", { paths: [sdk] })).version;
      const { LocalWorkspace } = pulumi.automation;
      const automation = LocalWorkspace === require(require("path").join(sdk, "automation")).LocalWorkspace && typeof LocalWorkspace.create;
      return { serialized: text.includes("42"), zod: [...paths.keys()].some((p) => ("/" + p).endsWith("/node_modules/zod")), shim, real, automation };`);
    const touched = used.touched as { serialized: boolean; zod: boolean; shim: string; real: string; automation: unknown };
    expect(touched).toEqual({ serialized: true, zod: true, shim: touched.real, real: expect.stringMatching(/^\d+\.\d+\.\d+/), automation: "function" });
    expect(used.loaded).toContain("/@pulumi/pulumi/automation/");
    // What those two calls touch of the packages this SDK's files require (Arborist: 3.248, not 3.276).
    const touchedFiles = ["runtime/closure/codePaths.js", "typescript-shim.js"];
    const required = touchedFiles.flatMap((f) => DEFERRED[f]!.filter((r) => fs.readFileSync(path.join(SDK, f), "utf8").includes(`require("${r}")`)));
    expect(required).toContain("typescript");
    expect(used.loaded).toEqual(expect.arrayContaining(required.map((r) => `/node_modules/${r}/`)));
  });
});
