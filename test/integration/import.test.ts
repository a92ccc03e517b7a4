// pulumi-svc-import's walk and its command line against the emulator: every kind says how the
// import finds it, a kind keyed by a path declares its path rule, the walk reads objects of an
// engine at another mount and nothing of a service not configured, an empty server gives an empty
// program, a refused token and an unknown workspace are one line naming the setting, bad arguments
// change nothing.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeContext } from "../../src/core/context";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";
import { main, parseArgs } from "../../src/import/cli";
import { UsageError } from "../../src/core/command";
import { kindsInOrder, walk } from "../../src/import/walk";
import { control, secretsApi, useEmulator } from "../support/emulator";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });
const dirs: string[] = [];
const out = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "import-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const env = (over: Record<string, string> = {}) => ({ SVC_SECRETS_URL: emu().secretsUrl, SVC_SECRETS_TOKEN: emu().tokens.secretsRoot, ...over });

describe("the definitions the import reads", () => {
  it("every kind says how the import finds its objects, and every kind keyed by its path declares the path's rule", async () => {
    for (const kind of KIND_NAMES) {
      const def = (await kindDefinition(kind))!;
      expect(def.discover, `${kind}: discover`).toBeDefined();
      // What the import takes over, adopt finds at its path and adoptId by its id.
      if (def.fields?.adopt) expect(def.path, `${kind}: path`).toBeDefined();
      if (!("none" in def.discover!)) expect(def.fields?.adopt ?? def.fields?.adoptId ?? def.path, `${kind}: adopt, adoptId or a path`).toBeDefined();
      // Each input a path takes is an input of the kind.
      for (const [, param] of (def.path?.route ?? "").matchAll(/\{(\w+)\}/g)) expect(def.fields?.[def.path!.inputs?.[param] ?? param], `${kind} {${param}}`).toBeDefined();
      for (const f of Object.values(def.fields ?? {})) for (const k of f.refers ?? []) expect(KIND_NAMES, `${kind} refers to ${k}`).toContain(k);
    }
  });

  it("orders the kinds so that what a field refers to comes first", async () => {
    const order = (await kindsInOrder()).map((d) => d.kind);
    expect(order.indexOf("secrets:TransformAlphabet")).toBeLessThan(order.indexOf("secrets:TransformTemplate"));
    expect(order.indexOf("secrets:TransformTemplate")).toBeLessThan(order.indexOf("secrets:TransformFpeTransformation"));
    expect(order.indexOf("secrets:TransformFpeTransformation")).toBeLessThan(order.indexOf("secrets:TransformRole"));
    expect(order.indexOf("secrets:KeymgmtKmsProvider")).toBeLessThan(order.indexOf("secrets:KeymgmtKeyDistribution"));
    expect(new Set(order).size).toBe(KIND_NAMES.length);
  });
});

describe("the walk", () => {
  it("finds objects of an engine mounted elsewhere only when told the mount, and reads them as a refresh does", async () => {
    await control(emu(), "POST", "/reset");
    await control(emu(), "POST", "/mounts", { path: "tx-eu", type: "transform" });
    await secretsApi(emu(), "POST", "/tx-eu/alphabet/letters", { alphabet: "abcdef" });
    const ctx = makeContext((k) => ({ "svc:secretsUrl": emu().secretsUrl, "svc:secretsToken": emu().tokens.secretsRoot })[k]);
    await secretsApi(emu(), "DELETE", "/registry/config/access");
    const alone = await walk(ctx, { workspaces: [], mounts: {} }, () => {}, { runs: false, secrets: true });
    expect(alone.found.map((f) => f.id)).toEqual([]);
    const both = await walk(ctx, { workspaces: [], mounts: { transform: ["transform", "tx-eu"] } }, () => {}, { runs: false, secrets: true });
    expect(both.found.map((f) => [f.kind, f.id, f.props.alphabet, f.props.mount])).toEqual([["secrets:TransformAlphabet", "tx-eu/alphabet/letters", "abcdef", "tx-eu"]]);
    expect(both.skipped.map((s) => s.kind)).toContain("secrets:ReplicationPerformanceSecondary");
    expect(both.skipped.map((s) => s.kind)).not.toContain("runs:Run");
  });
});

describe("pulumi-svc-import", () => {
  it("writes an empty program for an empty server and says so", async () => {
    // The emulator starts with the registry's access configured.
    await secretsApi(emu(), "DELETE", "/registry/config/access");
    const dir = out();
    const lines: string[] = [];
    const r = await main(["--out", dir], (l) => lines.push(l), env());
    expect(r.out).toContain(`Nothing found on the servers: ${path.join(dir, "index.ts")} declares no object.`);
    expect(fs.readFileSync(path.join(dir, "index.ts"), "utf8")).toContain("// Nothing was found on the servers");
    expect(lines[0]).toBe(`pulumi-svc-import: reading ${emu().secretsUrl}`);
  });

  it("names the setting when the token is refused or the workspace cannot be seen, and writes nothing", async () => {
    const dir = out();
    await expect(main(["--out", dir], () => {}, env({ SVC_SECRETS_TOKEN: "not-a-token" })))
      .rejects.toThrow(/^the secrets service refused the token: GET \/transform\/alphabet\?list=true: 403 Forbidden: .*check the token \(from environment variable SVC_SECRETS_TOKEN\)$/);
    await expect(main(["--out", dir, "--workspace", "ws-nothere00000001"], () => {},
      { SVC_RUN_URL: emu().runUrl, SVC_RUN_TOKEN: emu().tokens.runAdmin }))
      .rejects.toThrow(/answers 404 for a workspace that does not exist or that the token may not see; check --workspace and SVC_RUN_TOKEN$/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("refuses bad arguments and an existing program before any request", async () => {
    expect(() => parseArgs(["--mount", "transform"])).toThrow(UsageError);
    expect(() => parseArgs(["--workspace"])).toThrow("--workspace needs a value");
    expect(() => parseArgs(["--bogus"])).toThrow("unknown argument --bogus");
    expect(parseArgs(["--mount", "transform=tx-eu", "--workspace", "ws-a", "--workspace", "ws-b"]))
      .toEqual({ workspaces: ["ws-a", "ws-b"], mounts: { transform: ["transform", "tx-eu"] }, out: ".", force: false });
    const dir = out();
    fs.writeFileSync(path.join(dir, "index.ts"), "// mine\n");
    await control(emu(), "DELETE", "/requests");
    await expect(main(["--out", dir], () => {}, env())).rejects.toThrow(`${path.join(dir, "index.ts")} exists: give --force to overwrite it, or another --out`);
    await expect(main(["--out", dir], () => {}, {})).rejects.toThrow(/exists/);
    expect(fs.readFileSync(path.join(dir, "index.ts"), "utf8")).toBe("// mine\n");
    expect((await control<{ requests: unknown[] }>(emu(), "GET", "/requests")).requests).toEqual([]);
    await expect(main(["--out", out()], () => {}, {})).rejects.toThrow("neither SVC_SECRETS_URL nor SVC_RUN_URL is set: name the servers to import from");
  });
});
