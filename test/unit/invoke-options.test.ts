// Functions as Pulumi lookups, under pulumi.runtime.setMocks in preview (dry run): options shaped
// like InvokeOptions / InvokeOutputOptions, unknown results while inputs or dependencies do not
// exist yet, errors that name the function, and missing settings named during preview.
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromDist } from "../support/dist";

// From the build, as users load it: the resource classes need the compiled runtime entry beside them.
const svc = fromDist<typeof import("../../src")>("src/index.js");

const saved = { ...process.env };

beforeAll(async () => {
  for (const k of Object.keys(process.env)) if (k.startsWith("SVC_")) delete process.env[k];
  // Nothing listens on port 9: a request that is made fails with a transport error.
  process.env.SVC_SECRETS_URL = "http://127.0.0.1:9/v1";
  process.env.SVC_SECRETS_TOKEN = "invoke-options-token";
  process.env.SVC_MAX_RETRIES = "0";
  await pulumi.runtime.setMocks({
    // In a preview a resource that is to be created has no id yet.
    newResource: (args) => ({ id: undefined as unknown as string, state: args.inputs }),
    call: () => ({}),
  }, "project", "stack", true);
});

afterAll(() => {
  process.env = saved;
});

/** Whether an Output is known (internal SDK API, present throughout 3.x). */
function known(o: pulumi.Output<unknown>): Promise<boolean> {
  return (o as unknown as { isKnown: Promise<boolean> }).isKnown;
}

describe("Output forms in a first preview", () => {
  it("are unknown, without a request, while an input comes from a resource not created yet", async () => {
    const key = new svc.secrets.keymgmt.Key("k", { name: "app-signing" });
    const info = svc.secrets.keymgmt.getKeyOutput({ name: key.name });
    expect(await known(info)).toBe(false);
  });

  it("are unknown while a dependsOn resource is not created yet", async () => {
    const alphabet = new svc.secrets.transform.Alphabet("a", { name: "digits", alphabet: "0123456789" });
    expect(await known(svc.secrets.keymgmt.listKeysOutput({}, { dependsOn: [alphabet] }))).toBe(false);
    expect(await known(svc.secrets.keymgmt.listKeysOutput({}, { dependsOn: pulumi.output([alphabet]) }))).toBe(false);
  });
});

describe("transform Output forms take options like every other function", () => {
  // Each form as a user writes it: arguments, then `{ dependsOn }` (this file is type-checked too).
  const t = () => svc.secrets.transform;
  const forms: [string, (name: pulumi.Input<string>, opts: { dependsOn: pulumi.Resource[] }) => pulumi.Output<unknown>][] = [
    ["getRoleOutput", (name, opts) => t().getRoleOutput({ name }, opts)],
    ["getTransformationOutput", (name, opts) => t().getTransformationOutput({ name }, opts)],
    ["getStoreOutput", (name, opts) => t().getStoreOutput({ name }, opts)],
    ["getTokenizationKeyOutput", (name, opts) => t().getTokenizationKeyOutput({ name }, opts)],
    ["rotateTokenizationKeyOutput", (name, opts) => t().rotateTokenizationKeyOutput({ name }, opts)],
    ["trimTokenizationKeyOutput", (name, opts) => t().trimTokenizationKeyOutput({ name, minAvailableVersion: 2 }, opts)],
    ["encodeOutput", (role, opts) => t().encodeOutput({ role, value: "4111-1111-1111-1111" }, opts)],
    ["decodeOutput", (role, opts) => t().decodeOutput({ role, value: "4111-1111-1111-1111" }, opts)],
    ["validateOutput", (role, opts) => t().validateOutput({ role, value: "token" }, opts)],
    ["tokenizedOutput", (role, opts) => t().tokenizedOutput({ role, value: "plain" }, opts)],
    ["metadataOutput", (role, opts) => t().metadataOutput({ role, value: "token" }, opts)],
  ];

  it.each(forms)("%s is unknown, without a request, while a dependsOn resource or an input is not created yet", async (_name, form) => {
    const role = new svc.secrets.transform.Role(`r-${_name}`, { name: "payments" });
    // A request would fail (nothing listens on port 9) and reject these Outputs instead.
    expect(await known(form("payments", { dependsOn: [role] }))).toBe(false);
    expect(await known(form(role.name, { dependsOn: [] }))).toBe(false);
  });
});

describe("Promise forms", () => {
  it("name the function in validation and request errors", async () => {
    await expect(svc.secrets.keymgmt.getKey({ name: "" })).rejects.toThrow(/^getKey: /);
    await expect(svc.secrets.keymgmt.getKey({ name: "app" }, { connection: svc.secrets.connection({ url: "http://127.0.0.1:9/v1" }) }))
      .rejects.toThrow(/^getKey: /);
  });

  it("a side-effecting function makes no request in preview but still names a missing setting", async () => {
    expect(await svc.secrets.keymgmt.rotateKey({ name: "app" })).toBeUndefined();
    delete process.env.SVC_SECRETS_TOKEN;
    try {
      await expect(svc.secrets.keymgmt.rotateKey({ name: "app" })).rejects.toThrow(/^rotateKey: .*svc:secretsToken.*SVC_SECRETS_TOKEN/);
      // A connection that carries the token is enough.
      expect(await svc.secrets.keymgmt.rotateKey({ name: "app" }, { connection: { token: "from-connection" } })).toBeUndefined();
    } finally {
      process.env.SVC_SECRETS_TOKEN = "invoke-options-token";
    }
  });
});

// ---- every side-effecting function, found rather than listed ----

type Fn = (...args: unknown[]) => unknown;
interface Def { name: string; sideEffects: boolean; tokenless?: boolean }
interface Found { path: string; def: Def; output: boolean; service: "runs" | "secrets" }

// The compiled modules call fn_1.invoke / fn_1.invokeOutput at call time, so swapping them shows
// which definition each public function runs (without running it).
const fnModule = fromDist<Record<string, unknown>>("src/core/fn.js");

function publicFunctions(o: Record<string, unknown>, path: string): { path: string; f: Fn }[] {
  return Object.entries(o).flatMap(([k, v]) => {
    if (typeof v === "function" && !/^class\b/.test(Function.prototype.toString.call(v))) return [{ path: `${path}.${k}`, f: v as Fn }];
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return publicFunctions(v as Record<string, unknown>, `${path}.${k}`);
    return [];
  });
}

/** The definition a public function invokes, or what it threw on {} before reaching one. */
async function definitionBehind(f: Fn): Promise<{ def?: Def; threw?: string }> {
  const saved = { invoke: fnModule.invoke, invokeOutput: fnModule.invokeOutput };
  let seen: Def | undefined;
  fnModule.invoke = (def: Def) => ((seen = def), Promise.resolve(undefined));
  fnModule.invokeOutput = (def: Def) => ((seen = def), pulumi.output(undefined));
  let threw: string | undefined;
  try {
    const r = f({}) as { catch?: (h: () => void) => Promise<unknown> } | undefined;
    if (r && typeof r.catch === "function") await r.catch(() => undefined);
  } catch (e) {
    threw = (e as Error).message;
  } finally {
    Object.assign(fnModule, saved);
  }
  return seen ? { def: seen } : { threw };
}

/**
 * Public functions that throw on {} before any invocation, and why each cannot be a side-effecting
 * function left unchecked. Any other that throws fails the discovery test: it could be one.
 */
const THROWS_BEFORE_INVOKING: Record<string, string> = {
  "secrets.transform.exportDecodedTokenization": "an iterator of the read-only exportDecodedTokenization (sideEffects: false): validates, then reads pages itself",
  "secrets.transform.snapshotTokenization": "an iterator of the read-only snapshotTokenization (sideEffects: false): validates, then reads pages itself",
};

/** Valid arguments per side-effecting function (the test fails for one found without an entry). */
const ARGS: Record<string, Record<string, unknown>> = {
  verifyNotificationConfiguration: { id: "nc-1" },
  createRun: { workspaceId: "ws-1" },
  applyRun: { runId: "run-1" },
  discardRun: { runId: "run-1" },
  cancelRun: { runId: "run-1" },
  forceCancelRun: { runId: "run-1" },
  forceExecuteRun: { runId: "run-1" },
  waitForRun: { runId: "run-1" },
  encode: { role: "r", value: "4111-1111-1111-1111" },
  restoreTokenization: { transformation: "t", values: ["snapshot-value"] },
  rotateTokenizationKey: { name: "t" },
  trimTokenizationKey: { name: "t", minAvailableVersion: 1 },
  rotateKey: { name: "app" },
  checkOut: { setName: "pool" },
  checkIn: { setName: "pool" },
  manageCheckIn: { setName: "pool" },
  rotateRoot: {},
  rotateRole: { name: "app" },
  getRegistryCredentials: { role: "reader" },
  demotePrimary: {},
  revokeSecondary: { secondaryId: "dr" },
  promoteSecondary: {},
  updatePrimary: { token: "" },
  generateSecondaryPublicKey: {},
};

const SETTINGS = {
  runs: { url: ["SVC_RUN_URL", "http://127.0.0.1:9/api/v2"], token: ["SVC_RUN_TOKEN", "invoke-options-run-token"] },
  secrets: { url: ["SVC_SECRETS_URL", "http://127.0.0.1:9/v1"], token: ["SVC_SECRETS_TOKEN", "invoke-options-token"] },
} as const;
const KEYS = { runs: { url: "svc:runUrl", token: "svc:runToken" }, secrets: { url: "svc:secretsUrl", token: "svc:secretsToken" } };

function configureAll(): void {
  for (const s of Object.values(SETTINGS)) for (const [k, v] of Object.values(s)) process.env[k] = v;
}

/** What an Output form settles to: its value, or its failure (internal SDK API, present throughout 3.x). */
async function outcome(o: unknown): Promise<{ known: boolean; error?: Error }> {
  const out = o as { isKnown: Promise<boolean>; isSecret: Promise<boolean>; promise(): Promise<unknown> };
  // A failing Output rejects each of these: all are awaited, none is left unhandled here.
  void out.isSecret.catch(() => undefined);
  void out.isKnown.catch(() => undefined);
  try {
    await out.promise();
    return { known: await out.isKnown };
  } catch (e) {
    checkedFailures.add(e);
    return { known: false, error: e as Error };
  }
}

/** The failure of a Promise form, or undefined. */
async function failure(r: unknown): Promise<Error | undefined> {
  return (r as Promise<unknown>).then(() => undefined, (e: Error) => (checkedFailures.add(e), e));
}

/**
 * pulumi.secret(output), as the secret Output forms return, leaves copies of a failure unhandled
 * inside the SDK (output.js: output() re-wraps the Output with apply, whose isSecret nobody reads).
 * They are collected while these tests run, and each must be a failure a test checked.
 */
const checkedFailures = new Set<unknown>();
const stray: unknown[] = [];
let runnerListeners: NodeJS.UnhandledRejectionListener[] = [];

describe("every side-effecting function in preview", () => {
  let found: Found[] = [];
  /** Public functions that threw on {} before reaching an invocation: path → message. */
  const threw: Record<string, string> = {};

  beforeAll(() => {
    runnerListeners = process.listeners("unhandledRejection");
    process.removeAllListeners("unhandledRejection");
    process.on("unhandledRejection", (e) => stray.push(e));
  });

  afterAll(async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.removeAllListeners("unhandledRejection");
    for (const l of runnerListeners) process.on("unhandledRejection", l);
    expect(stray.filter((e) => !checkedFailures.has(e))).toEqual([]);
  });
  beforeAll(async () => {
    configureAll();
    for (const [service, ns] of [["runs", svc.runs], ["secrets", svc.secrets]] as const) {
      for (const { path, f } of publicFunctions(ns as unknown as Record<string, unknown>, service)) {
        const { def, threw: message } = await definitionBehind(f);
        if (def?.sideEffects) found.push({ path, def, output: path.endsWith("Output"), service });
        if (message !== undefined) threw[path] = message;
      }
    }
    found = found.sort((a, b) => a.path.localeCompare(b.path));
  });

  afterAll(configureAll);

  const call = (x: Found, args: Record<string, unknown>, opts?: unknown) =>
    (publicFunctions(svc as unknown as Record<string, unknown>, "").find((p) => p.path === `.${x.path}`)!.f)(args, opts);

  it("are found through the public surface, each with arguments to call it with", () => {
    // A function whose call throws is not found either way: only the listed ones may.
    expect(Object.keys(threw).sort(), JSON.stringify(threw)).toEqual(Object.keys(THROWS_BEFORE_INVOKING).sort());
    const names = [...new Set(found.map((x) => x.def.name))];
    // The audit's cases are among them; every one found has both forms and arguments here.
    expect(names).toEqual(expect.arrayContaining(["rotateTokenizationKey", "trimTokenizationKey", "restoreTokenization", "rotateRoot", "rotateRole",
      "getRegistryCredentials", "checkOut", "checkIn", "manageCheckIn", "rotateKey", "createRun", "demotePrimary"]));
    for (const name of names) {
      expect(found.filter((x) => x.def.name === name).map((x) => x.output).sort(), name).toEqual([false, true]);
      expect(ARGS[name], `arguments for ${name}`).toBeDefined();
    }
  });

  it("configured: no request (port 9 would fail it), the Promise form resolves undefined, the Output is unknown", async () => {
    configureAll();
    for (const x of found) {
      const r = call(x, ARGS[x.def.name]);
      if (x.output) expect(await outcome(r), x.path).toEqual({ known: false });
      else expect(await r, x.path).toBeUndefined();
    }
  });

  it("a missing URL or token of the function's own service fails naming the config key and the variable", async () => {
    for (const x of found) {
      for (const setting of ["url", "token"] as const) {
        configureAll();
        delete process.env[SETTINGS[x.service][setting][0]];
        // The other service's settings do not matter to this function.
        const other = x.service === "runs" ? "secrets" : "runs";
        delete process.env[SETTINGS[other].url[0]];
        delete process.env[SETTINGS[other].token[0]];
        const r = call(x, ARGS[x.def.name]);
        const error = x.output ? (await outcome(r)).error : await failure(r);
        if (setting === "token" && x.def.tokenless) {
          expect(error, x.path).toBeUndefined();
          continue;
        }
        expect(error?.message, `${x.path} without ${setting}`).toMatch(new RegExp(`^${x.def.name}: .*"${KEYS[x.service][setting]}".*${SETTINGS[x.service][setting][0]}`));
      }
    }
    configureAll();
  });

  it("a connection that carries the URL and token is enough", async () => {
    for (const x of found) {
      for (const s of Object.values(SETTINGS)) for (const [k] of Object.values(s)) delete process.env[k];
      const base = SETTINGS[x.service].url[1];
      const r = call(x, ARGS[x.def.name], { connection: { url: base, token: "from-connection" } });
      if (x.output) expect(await outcome(r), x.path).toEqual({ known: false });
      else expect(await r, x.path).toBeUndefined();
    }
    configureAll();
  });

  it("bad arguments fail in preview too, naming the property", async () => {
    for (const x of found.filter((f) => "name" in ARGS[f.def.name] || "setName" in ARGS[f.def.name])) {
      const key = "name" in ARGS[x.def.name] ? "name" : "setName";
      const r = call(x, { ...ARGS[x.def.name], [key]: "" });
      const error = x.output ? (await outcome(r)).error : await failure(r);
      expect(error?.message, x.path).toMatch(new RegExp(`^${x.def.name}: .*${key}`));
    }
  });
});
