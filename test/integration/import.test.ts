// pulumi-svc-import's walk and its command line against the emulator: every kind says how the
// import finds it, a kind keyed by a path declares its path rule, the walk reads objects of an
// engine at another mount and nothing of a service not configured, an empty server gives an empty
// program, a refused token and an unknown workspace are one line naming the setting, bad arguments
// change nothing. A token refused by a whole service, or a URL that is not its service, ends the
// import (non-zero, nothing written) whatever the other service gave; a token refused by some
// kinds only imports the rest and says which were not read.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeContext } from "../../src/core/context";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";
import { main, parseArgs } from "../../src/import/cli";
import { UsageError } from "../../src/core/command";
import { kindsInOrder, walk } from "../../src/import/walk";
import { control, runApi, secretsApi, useEmulator } from "../support/emulator";

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
const env = (over: Record<string, string> = {}) => ({ SVC_SECRETS_URL: emu.secretsUrl, SVC_SECRETS_TOKEN: emu.tokens.secretsRoot, ...over });

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
    await control(emu, "POST", "/reset");
    await control(emu, "POST", "/mounts", { path: "tx-eu", type: "transform" });
    await secretsApi(emu, "POST", "/tx-eu/alphabet/letters", { alphabet: "abcdef" });
    const ctx = makeContext((k) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsRoot })[k]);
    await secretsApi(emu, "DELETE", "/registry/config/access");
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
    await secretsApi(emu, "DELETE", "/registry/config/access");
    const dir = out();
    const lines: string[] = [];
    const r = await main(["--out", dir], (l) => lines.push(l), env());
    expect(r.out).toContain(`Nothing found on the servers: ${path.join(dir, "index.ts")} declares no object.`);
    expect(fs.readFileSync(path.join(dir, "index.ts"), "utf8")).toContain("// Nothing was found on the servers");
    expect(lines[0]).toBe(`pulumi-svc-import: reading ${emu.secretsUrl}`);
  });

  it("names the setting when the token is refused or the workspace cannot be seen, and writes nothing", async () => {
    const dir = out();
    await expect(main(["--out", dir], () => {}, env({ SVC_SECRETS_TOKEN: "not-a-token" })))
      .rejects.toThrow(/^the secrets service refused the token: GET \/transform\/alphabet\?list=true: 403 Forbidden: .*check the token \(from environment variable SVC_SECRETS_TOKEN\)$/);
    await expect(main(["--out", dir, "--workspace", "ws-nothere00000001"], () => {},
      { SVC_RUN_URL: emu.runUrl, SVC_RUN_TOKEN: emu.tokens.runAdmin }))
      .rejects.toThrow(/answers 404 for a workspace that does not exist or that the token may not see; check --workspace and SVC_RUN_TOKEN$/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  describe("stops when a service cannot be read, whatever the other one gave", () => {
    // Both services configured, with an object on each: before, a refusal of one service was a
    // progress line among the others and the import wrote the other's objects, exiting 0.
    const both = (over: Record<string, string> = {}) => env({ SVC_RUN_URL: emu.runUrl, SVC_RUN_TOKEN: emu.tokens.runAdmin, ...over });
    const seed = async () => {
      await secretsApi(emu, "POST", "/transform/alphabet/digits", { alphabet: "0123456789" });
      const nc = await runApi(emu, "POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
        data: { type: "notification-configurations", attributes: { name: "ci", "destination-type": "generic", enabled: false, url: "https://hooks.example/ci", triggers: ["run:completed"] } },
      });
      expect(nc.status).toBe(201);
    };
    const ends = async (over: Record<string, string>, message: RegExp) => {
      await seed();
      const dir = out();
      const lines: string[] = [];
      await expect(main(["--out", dir, "--workspace", emu.workspaceId], (l) => lines.push(l), both(over))).rejects.toThrow(message);
      expect(fs.readdirSync(dir)).toEqual([]);
      return lines;
    };

    it("a secrets token the service refuses", async () => {
      await ends({ SVC_SECRETS_TOKEN: "not-a-token" },
        /^the secrets service refused the token: GET \/transform\/alphabet\?list=true: 403 Forbidden: permission denied; check the token \(from environment variable SVC_SECRETS_TOKEN\)$/);
    });

    it("a run token the service refuses", async () => {
      await ends({ SVC_RUN_TOKEN: "not-a-token" },
        /^the run service refused the token: GET \/workspaces\/ws-\w+\/notification-configurations\?\S+: 401 Unauthorized: unauthorized; check the token \(from environment variable SVC_RUN_TOKEN\)$/);
    });

    it("a secrets URL that is the run service's, and a run URL that is the secrets service's", async () => {
      await ends({ SVC_SECRETS_URL: emu.runUrl },
        new RegExp(`^SVC_SECRETS_URL \\(${emu.runUrl}\\) is not the secrets service: GET /sys/replication/performance/status: 401 Unauthorized: unauthorized; give the secrets service base URL ending in /v1 \\(https://<host>/v1\\)$`));
      await control(emu, "POST", "/reset");
      await ends({ SVC_RUN_URL: emu.secretsUrl },
        /^SVC_RUN_URL \(.*\/v1\) is not the run service: GET \/ping: 403 Forbidden: permission denied; give the run service base URL ending in \/api\/v2 \(https:\/\/<host>\/api\/v2\)$/);
    });

    it("a token that may read some kinds only (no sudo: not the plugin catalog) imports the rest and says which were not read", async () => {
      await seed();
      const dir = out();
      const lines: string[] = [];
      const r = await main(["--out", dir, "--workspace", emu.workspaceId], (l) => lines.push(l), both({ SVC_SECRETS_TOKEN: emu.tokens.secretsUser }));
      expect(r.code).toBe(0);
      const program = fs.readFileSync(path.join(dir, "index.ts"), "utf8");
      expect(program).toContain("new svc.secrets.transform.Alphabet(");
      expect(program).toContain("new svc.runs.NotificationConfiguration(");
      expect(r.out).toContain("Not read, the token may not read them (the lines above say why): secrets:PluginCatalogEntry; their objects are not in the program.");
      // The catalog lists without sudo; reading a plugin needs it.
      const refusals = lines.filter((l) => l.includes("may not read"));
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toMatch(/^pulumi-svc-import: not imported: secrets:PluginCatalogEntry: the token may not read it: GET \/sys\/plugins\/catalog\/\S+: 403 Forbidden: permission denied; check the token \(from environment variable SVC_SECRETS_TOKEN\)$/);
    });
  });

  it("refuses an unknown or misspelt engine of --mount and a misspelt option, with the nearest, before any request", async () => {
    await control(emu, "DELETE", "/requests");
    const dir = out();
    const refused = main(["--out", dir, "--mount", "transfrom=transform-eu"], () => {}, env());
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow("--mount transfrom=transform-eu: transfrom is not an engine; did you mean transform? (the engines: ");
    await expect(main(["--out", dir, "--mount", "vault=v2"], () => {}, env())).rejects.toThrow(/^--mount vault=v2: vault is not an engine \(the engines: (transform|keymgmt|directory|registry)(, (transform|keymgmt|directory|registry)){3}\)$/);
    expect(() => parseArgs(["--workspaces", "ws-a"])).toThrow("unknown argument --workspaces; did you mean --workspace?");
    expect(() => parseArgs(["--froce"])).toThrow("unknown argument --froce; did you mean --force?");
    expect(parseArgs(["--mount", "transform=transform", "--mount", "transform=eu", "--mount", "transform=eu"])).toMatchObject({ mounts: { transform: ["transform", "eu"] } });
    expect(fs.readdirSync(dir)).toEqual([]);
    expect((await control<{ requests: unknown[] }>(emu, "GET", "/requests")).requests).toEqual([]);
  });

  it("refuses a --mount path at which no engine of its kind is mounted, naming the service's answer, and writes nothing", async () => {
    await control(emu, "POST", "/mounts", { path: "keys-eu", type: "keymgmt" });
    await control(emu, "POST", "/mounts", { path: "transform-empty", type: "transform" });
    const dir = out();
    for (const [mount, route] of [["transform=transform-eu", "LIST /transform-eu/alphabet"], ["transform=keys-eu", "LIST /keys-eu/alphabet"], ["registry=registry-eu", "LIST /registry-eu/roles"]]) {
      const refused = main(["--out", dir, "--mount", mount], () => {}, env());
      await expect(refused).rejects.toThrow(UsageError);
      const path = mount.split("=")[1]!;
      await expect(refused).rejects.toThrow(`--mount ${mount}: no ${mount.split("=")[0]} engine is mounted at ${path} (${route}: 404 no handler for route "${route.split(" /")[1]}"); give the path the engine is mounted at`);
    }
    expect(fs.readdirSync(dir)).toEqual([]);
    // An engine with nothing in it is no refusal: its lists answer 404 with no message.
    const empty = await main(["--out", dir, "--mount", "transform=transform-empty"], () => {}, env());
    expect(empty.code).toBe(0);
  });

  it("refuses bad arguments and an existing program before any request", async () => {
    expect(() => parseArgs(["--mount", "transform"])).toThrow(UsageError);
    expect(() => parseArgs(["--workspace"])).toThrow("--workspace needs a value");
    expect(() => parseArgs(["--bogus"])).toThrow("unknown argument --bogus");
    expect(parseArgs(["--mount", "transform=tx-eu", "--workspace", "ws-a", "--workspace", "ws-b"]))
      .toEqual({ workspaces: ["ws-a", "ws-b"], mounts: { transform: ["transform", "tx-eu"] }, out: ".", force: false });
    const dir = out();
    fs.writeFileSync(path.join(dir, "index.ts"), "// mine\n");
    await control(emu, "DELETE", "/requests");
    await expect(main(["--out", dir], () => {}, env())).rejects.toThrow(`${path.join(dir, "index.ts")} exists: give --force to overwrite it, or another --out`);
    await expect(main(["--out", dir], () => {}, {})).rejects.toThrow(/exists/);
    expect(fs.readFileSync(path.join(dir, "index.ts"), "utf8")).toBe("// mine\n");
    expect((await control<{ requests: unknown[] }>(emu, "GET", "/requests")).requests).toEqual([]);
    await expect(main(["--out", out()], () => {}, {})).rejects.toThrow("neither SVC_SECRETS_URL nor SVC_RUN_URL is set: name the servers to import from");
  });
});
