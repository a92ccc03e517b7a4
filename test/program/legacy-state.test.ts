// Issue 23: users' state keeps loading after the redesign. The fixture (fixtures/legacy, made by
// scripts/legacy-fixtures.sh with the build of the commit in its stacks.json) is a stack deployed by
// that old build, from inside its checkout (providers serialized by value, falling back on
// require("pulumi-svc/runtime")) and from a user's project with the old package installed
// (providers that are require("pulumi-svc/dist/src/providers/<service>/<Kind>.js")), with the old
// emulator's state. Here this build's emulator opens that state, and this build's provider refreshes
// and previews the stack: nothing may move and nothing may be planned.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, STATE_KEY_ENV, type Emulator } from "../../src/emulator";
import { installedProject } from "../../src/engine/installed";
import { runProgram } from "../../src/engine/program";
import { DEFAULT_PASSPHRASE, loadState, type StateResource } from "../../src/engine/state";
import type { Operation, Result } from "../../src/engine/types";
import { late } from "../support/program";
import { root, withoutSvcEnv } from "../support/dist";

const fixtures = path.join(root, "test/program/fixtures/legacy");

type Layout = "repo" | "installed";
interface Deployed { url: string; runUrl: string; secretsUrl: string; controlUrl: string }
interface Manifest {
  commit: string;
  project: string;
  stack: string;
  layouts: Record<Layout, { deployed: Deployed; config: Record<string, string>; secretConfig: Record<string, string> }>;
}
const manifest = JSON.parse(fs.readFileSync(path.join(fixtures, "stacks.json"), "utf8")) as Manifest;

/** Every kind the fixture deployed, under the type token the old build gave it. */
const KINDS = [
  "runs:NotificationConfiguration", "runs:Run",
  "secrets:TransformAlphabet", "secrets:TransformTemplate", "secrets:TransformStore", "secrets:TransformStoreSchema",
  "secrets:TransformFpeTransformation", "secrets:TransformMaskingTransformation", "secrets:TransformTokenizationTransformation",
  "secrets:TransformTransformation", "secrets:TransformRole", "secrets:TransformTokenizationKeyConfig",
  "secrets:KeymgmtKmsProvider", "secrets:KeymgmtKey", "secrets:KeymgmtKeyDistribution",
  "secrets:IdentityEntityAlias", "secrets:PluginCatalogEntry", "secrets:MfaDualFactorMethod",
  "secrets:DirectoryConfig", "secrets:DirectoryRole", "secrets:DirectoryLibrarySet", "secrets:DirectoryCheckOut",
  "secrets:RegistryAccessConfig", "secrets:RegistryRole",
  "secrets:ReplicationPerformancePrimary", "secrets:ReplicationSecondaryToken",
];
const typeToken = (kind: string) => `pulumi-nodejs:dynamic/${kind}`;
/** dist/src/providers/<service>/<Kind>.js of a type token. */
const providerModule = (type: string) => {
  const [service, kind] = type.replace("pulumi-nodejs:dynamic/", "").split(":");
  return `dist/src/providers/${service}/${kind}.js`;
};

/** `{runUrl}`, `{secretsUrl}` and `{tokens.<name>}` from the emulator serving the stack now. */
function fill(map: Record<string, string>, emu: Emulator): Record<string, string> {
  const values: Record<string, string> = { runUrl: emu.runUrl, secretsUrl: emu.secretsUrl };
  for (const [k, v] of Object.entries(emu.tokens)) values[`tokens.${k}`] = v;
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, v.replace(/\{([\w.]+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`stacks.json: unknown placeholder {${name}}`);
    return values[name];
  })]));
}

/** What a resource holds, but the provider text (the engine does not compare it either). */
const held = (r: StateResource) => {
  const { __provider: _in, ...inputs } = r.inputs;
  const { __provider: _out, ...outputs } = r.outputs;
  return { id: r.id, type: r.type, inputs, outputs, secretOutputs: [...r.secretOutputs].sort(), dependencies: r.dependencies };
};
const byUrn = (resources: StateResource[]) => Object.fromEntries(resources.map((r) => [r.urn, held(r)]));

interface Trace { main: string; request: string; resolved?: string; error?: string }

function legacyStack(layout: Layout) {
  const fixture = manifest.layouts[layout];
  const source = path.join(fixtures, layout);
  let dir: string | undefined;
  let emulator: Emulator | undefined;
  let installed: ReturnType<typeof installedProject> | undefined;
  const emu = late("emulator", () => emulator);
  const folder = () => dir ?? "";
  const stack = () => path.join(folder(), "stack.json");
  const traceFile = () => path.join(folder(), "modules.jsonl");
  /** Where the program lives and the host resolves require() from: this checkout, or the user's project. */
  const cwd = () => (layout === "repo" ? root : installed!.dir);
  const program = () => (layout === "repo" ? path.join(fixtures, "program/index.js") : path.join(installed!.dir, "legacy-program/index.js"));
  /** This build's package: the checkout, or its copy in the project's node_modules. */
  const packageDir = () => (layout === "repo" ? root : path.join(installed!.dir, "node_modules/pulumi-svc"));

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `pulumi-svc-legacy-${layout}-`));
    // The emulator reads its state's key from SVC_EMULATOR_STATE_KEY, else from <state>.key: here
    // the key file the old emulator made, copied with the state.
    fs.copyFileSync(path.join(source, "emulator.json"), path.join(dir, "emulator.json"));
    fs.copyFileSync(path.join(source, "emulator.json.key"), path.join(dir, "emulator.json.key"));
    const keyFromEnv = process.env[STATE_KEY_ENV];
    delete process.env[STATE_KEY_ENV];
    try {
      emulator = await startEmulator({ statePath: path.join(dir, "emulator.json"), flushMs: 0 });
    } finally {
      if (keyFromEnv !== undefined) process.env[STATE_KEY_ENV] = keyFromEnv;
    }
    // Ports are picked afresh on every start, so the recorded server (serverUrl, which is not
    // secret) is pointed at this emulator: the only edit made to the installed layout's stack.
    const saved = JSON.parse(fs.readFileSync(path.join(source, "stack.json"), "utf8")) as { resources: StateResource[] };
    const moved: Record<string, string> = { [fixture.deployed.runUrl]: emulator.runUrl, [fixture.deployed.secretsUrl]: emulator.secretsUrl };
    for (const r of saved.resources) {
      for (const props of [r.inputs, r.outputs]) {
        const url = props.serverUrl;
        if (typeof url !== "string" || !(url in moved)) throw new Error(`${r.name}: serverUrl ${JSON.stringify(url)} is not a server of the fixture's emulator`);
        props.serverUrl = moved[url];
      }
    }
    if (layout === "repo") {
      // A provider serialized by value names the runtime entry twice: require("pulumi-svc/runtime"),
      // which the host cannot resolve (it evaluates the text as a module without a file name, so
      // there is no package scope to refer to itself from, and this checkout's node_modules has no
      // pulumi-svc), then the absolute path of the checkout that deployed the stack, which the host
      // loads. That checkout was a temporary one, gone now (left as it is, refresh and destroy fail:
      // "Cannot find module '<its path>'"): its path becomes this checkout's, as if the stack had been
      // deployed here before an upgrade in place (the second and last edit). A state written inside
      // a checkout is bound to that checkout's path; one written with the package installed is not.
      for (const r of saved.resources) {
        for (const props of [r.inputs, r.outputs]) {
          const text = String(props.__provider);
          const recorded = /runtimePath: "([^"]+)"/.exec(text)?.[1];
          if (!recorded?.endsWith("/dist/src/core/runtime.js")) throw new Error(`${r.name}: no runtime path in its provider text`);
          props.__provider = text.replace(`runtimePath: "${recorded}"`, `runtimePath: ${JSON.stringify(path.join(root, "dist/src/core/runtime.js"))}`);
        }
      }
    }
    fs.writeFileSync(stack(), JSON.stringify(saved, null, 2));
    if (layout === "installed") {
      installed = installedProject("pulumi-svc-legacy-installed-");
      fs.cpSync(path.join(fixtures, "program"), path.join(installed.dir, "legacy-program"), { recursive: true });
    }
  });
  afterAll(async () => {
    await emulator?.close();
    installed?.remove();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const run = (operation: Operation): Promise<Result> => runProgram({
    operation,
    program: program(),
    state: stack(),
    cwd: cwd(),
    stack: manifest.stack,
    project: manifest.project,
    config: fill(fixture.config, emu),
    secretConfig: fill(fixture.secretConfig, emu),
    env: {
      ...(withoutSvcEnv() as Record<string, string>),
      PULUMI_CONFIG_PASSPHRASE: DEFAULT_PASSPHRASE,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --require ${path.join(root, "test/support/trace-modules.js")}`.trim(),
      PULUMI_SVC_TRACE_MODULES: traceFile(),
    },
    timeoutMs: 120_000,
  });
  const load = () => loadState(stack(), DEFAULT_PASSPHRASE).state.resources;
  const traces = (): Trace[] => fs.existsSync(traceFile())
    ? fs.readFileSync(traceFile(), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Trace)
    : [];
  return { fixture, emu, run, load, traces, packageDir, source };
}

for (const layout of ["repo", "installed"] as const) {
  describe(`a stack deployed at ${manifest.commit.slice(0, 7)} (${layout === "repo" ? "inside the checkout" : "package installed"})`, () => {
    const { fixture, emu, run, load, traces, packageDir, source } = legacyStack(layout);
    /** The stack as the old build left it (with the edits above), before anything ran here. */
    let before: StateResource[] = [];
    beforeAll(() => {
      before = load();
    });

    it("holds a resource of every kind under the old type tokens, its secrets encrypted with the engine double's passphrase", () => {
      expect([...new Set(before.map((r) => r.type))].sort()).toEqual(KINDS.map(typeToken).sort());
      expect(before.every((r) => r.custom)).toBe(true);
      for (const r of before) expect(r.urn).toBe(`urn:pulumi:${manifest.stack}::${manifest.project}::${r.type}::${r.name}`);

      // On disk every secret is {"secure": ...}: no secret config value nor emulator token in clear.
      const text = fs.readFileSync(path.join(source, "stack.json"), "utf8");
      const secrets = [...Object.values(fill(fixture.secretConfig, emu)), ...Object.values(emu.tokens)];
      for (const s of secrets) expect(text).not.toContain(s);
      const disk = JSON.parse(text) as { resources: StateResource[] };
      const sealed = disk.resources.flatMap((r) => r.secretOutputs.map((k) => [r.name, k, r.outputs[k]] as const)).filter(([, , v]) => v !== undefined);
      expect(sealed.length).toBeGreaterThanOrEqual(10);
      for (const [name, key, v] of sealed) expect({ name, key, v }).toEqual({ name, key, v: { secure: expect.any(String) } });
    });

    it("stores providers that this build still serves", () => {
      for (const r of before) {
        const text = String(r.inputs.__provider);
        if (layout === "repo") {
          // By value: the runtime entry by name, then a checkout's absolute path.
          expect(text).toContain('require("pulumi-svc/runtime")');
        } else {
          expect(text).toContain(`require("pulumi-svc/${providerModule(r.type)}")`);
          expect(fs.existsSync(path.join(packageDir(), providerModule(r.type)))).toBe(true);
        }
      }
    });

    it("opens the old emulator's state and refreshes with no change to any resource", { timeout: 120_000 }, async () => {
      const r = await run("refresh");
      expect(r.error).toBeUndefined();
      expect(r.steps.map((s) => s.name).sort()).toEqual(before.map((b) => b.name).sort());
      expect(r.steps.filter((s) => s.op !== "refresh" || (s.changedKeys ?? []).length > 0)).toEqual([]);
      // The same values under the same secret markers, inputs and outputs alike. The one addition:
      // the registry access config's refresh records that the service reported it (a hidden output),
      // so that a later 404 is read as gone (docs/assumptions.md, item 82).
      const expected = byUrn(before);
      const access = before.filter((b) => b.type === typeToken("secrets:RegistryAccessConfig"));
      expect(access).toHaveLength(1);
      expected[access[0]!.urn]!.outputs = { ...expected[access[0]!.urn]!.outputs, __readable: true };
      expect(byUrn(load())).toEqual(expected);
    });

    it("loads this build's code in the provider host, not the old build's", () => {
      const host = traces().filter((t) => t.main.includes("dynamic-provider"));
      const failed = host.filter((t) => t.error);
      if (layout === "repo") {
        // The by-name require fails in the host every time; the recorded path is what loads.
        expect(failed.length).toBeGreaterThan(0);
        expect(new Set(failed.map((t) => `${t.request} ${t.error}`))).toEqual(new Set(["pulumi-svc/runtime MODULE_NOT_FOUND"]));
      } else {
        expect(failed).toEqual([]);
      }
      const resolved = [...new Set(host.flatMap((t) => (t.resolved ? [t.resolved] : [])))];
      const pkg = fs.realpathSync(packageDir());
      // The entry moved above the definitions (src/runtime.ts): pulumi-svc/runtime names the host's
      // entry that loads it (src/host.ts), and the path a checkout's state records
      // (dist/src/core/runtime.js) forwards to that.
      expect(resolved).toContain(path.join(pkg, layout === "repo" ? "dist/src/core/runtime.js" : "dist/src/host.js"));
      for (const file of resolved) expect(file.startsWith(`${pkg}${path.sep}`)).toBe(true);
      if (layout === "repo") {
        expect(host.filter((t) => t.resolved).map((t) => t.request)).toContain(path.join(root, "dist/src/core/runtime.js"));
      } else {
        // Each kind's generated module, from the project's node_modules.
        const modules = resolved.filter((f) => f.includes(`${path.sep}providers${path.sep}`)).map((f) => path.relative(pkg, f)).sort();
        expect(modules).toEqual([...new Set(before.map((b) => providerModule(b.type)))].sort());
      }
    });

    it("previews the program with this build: every step is the same", { timeout: 120_000 }, async () => {
      const r = await run("preview");
      expect(r.error).toBeUndefined();
      expect(r.steps.filter((s) => s.op !== "same")).toEqual([]);
      // The same resources: a changed type token would be a create and a delete.
      expect(r.steps.map((s) => `${s.type}::${s.name}`).sort()).toEqual(before.map((b) => `${b.type}::${b.name}`).sort());
    });
  });
}
