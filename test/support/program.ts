// The shared harness of the program tests (test/program) and, through useEmulators, the protocol
// tests (test/support/protocol.ts): emulators started in beforeAll and closed in afterAll, a temp
// folder with the stack's state file, and a `run` that drives a program through the engine double
// with the file's stack config and no SVC_* variable. A test file keeps only what is its own.
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { Emulator, EmulatorCluster } from "../../src/emulator";
import type { Operation, Result, StepOp } from "../../src/engine/types";
import { root, withoutSvcEnv } from "./dist";
import { control, requests, runApi, secretsApi, useEmulator, type LoggedRequest } from "./emulator";
import { runInline } from "./inline";

/**
 * A handle to an object that a beforeAll makes: usable in tests and later hooks as the object
 * itself (`emu.tokens`, `host.check(...)`), an error with `name` when touched before it exists.
 */
export function late<T extends object>(name: string, get: () => T | undefined): T {
  const current = (): T => {
    const value = get();
    if (value === undefined) throw new Error(`${name} is not there yet: it is made in beforeAll`);
    return value;
  };
  return new Proxy({} as T, {
    get(_, prop) {
      const target = current();
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    has: (_, prop) => Reflect.has(current(), prop),
    ownKeys: () => Reflect.ownKeys(current()),
    getOwnPropertyDescriptor: (_, prop) => {
      const d = Reflect.getOwnPropertyDescriptor(current(), prop);
      return d && { ...d, configurable: true };
    },
  });
}

/**
 * `count` emulators (each with `clusters` secrets clusters) for the enclosing file or describe
 * block: started in beforeAll, closed in afterAll. The first is `emu`; `emus` holds one late()
 * handle for each, so `const [a, b] = emus` works where the block is declared.
 */
export function useEmulators(options: { count?: number; clusters?: number } = {}): { emu: Emulator; emus: readonly Emulator[] } {
  // The programs get the emulators through their stack config only; each test resets what it uses.
  const emus = Array.from({ length: options.count ?? 1 }, (_, i) => {
    const { emu } = useEmulator({ clusters: options.clusters, reset: false, env: false });
    return late(`emulator ${i}`, () => (emu.url === undefined ? undefined : emu));
  });
  return { emu: emus[0]!, emus };
}

type Service = "run" | "secrets";
type Config = Record<string, string>;

export interface ProgramOptions {
  /** An example compiled under dist/examples: step 1 is `<example>/index.js`, step 2 `<example>/step2/index.js`. */
  example?: string;
  /** A program file instead of an example, or a function of the context (for one written by `setup`). */
  program?: string | ((p: ProgramHarness) => string);
  project: string;
  /** Stack name; "dev" unless given. */
  stack?: string;
  /** The program's directory, from which the host resolves the providers' require(); the repository root unless given. */
  cwd?: (p: ProgramHarness) => string;
  /** Separate emulators (a program addressing two servers of each service); 1 unless given. */
  emulators?: number;
  /** Secrets clusters of each emulator (replication); 1 unless given. */
  clusters?: number;
  /** Which services the `svc:` config addresses (the first emulator's); both unless given. */
  services?: Service[];
  /** The emulator token given as `svc:secretsToken`; the ordinary (non-sudo) one unless given. */
  secretsToken?: "secretsUser" | "secretsRoot";
  /** The program's own plain config, added to (and overriding) the `svc:` keys. */
  config?: (p: ProgramHarness) => Config;
  /** The program's own secret config, added to (and overriding) the `svc:` tokens. */
  secretConfig?: (p: ProgramHarness) => Config;
  /** More setup once the emulators and the folder exist (seed data, write a program). */
  setup?: (p: ProgramHarness) => Promise<void> | void;
  /** Undoes what `setup` made outside the folder; runs before the emulators close. */
  teardown?: () => Promise<void> | void;
}

export interface RunOverrides {
  config?: Config;
  secretConfig?: Config;
  /** Another state file (relative to the folder, or absolute). */
  state?: string;
}

export interface ProgramHarness {
  /** The first (usually the only) emulator. */
  emu: Emulator;
  /** Every emulator (`emulators: n`), the first is `emu`: `const [a, b] = emus` works where the block is declared. */
  emus: readonly Emulator[];
  /** The temp folder, made before `setup` and removed after the block. */
  dir: string;
  /** The stack's state file: `<dir>/stack.json`. */
  state: string;
  /** The example's step 1 and step 2 programs (absolute paths under dist/). */
  step1: string;
  step2: string;
  /**
   * Runs `operation` on the stack through the engine double: `step` 1 (the default) or 2 of the
   * example, or a program file; `overrides` change config or the state file for this run only.
   */
  run(operation: Operation, step?: 1 | 2 | string, overrides?: RunOverrides): Promise<Result>;
  /** Each step's operation by resource name. */
  ops(result: Result): Record<string, StepOp>;
  /** The state file's text (the stack's unless named). */
  stateText(file?: string): string;
  /** A raw request to the secrets service with the root token (cluster `target`, the first emulator's unless given). */
  secretsApi(method: string, path: string, body?: unknown, target?: SecretsTarget): Promise<{ status: number; body: any }>;
  /** A raw GET to the secrets service with the root token. */
  get(path: string, target?: SecretsTarget): Promise<{ status: number; body: any }>;
  /** A raw request to the run service with the admin token. */
  runApi(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A control-endpoint request (`/_emulator`). */
  control<T = unknown>(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown, target?: ControlTarget): Promise<T>;
  /** The request log, and emptying it. */
  requests(target?: ControlTarget): Promise<LoggedRequest[]>;
  clearRequests(target?: ControlTarget): Promise<void>;
  /** Logged requests other than GET and LIST, as "METHOD /v1/path". */
  writes(target?: ControlTarget): Promise<string[]>;
}

type SecretsTarget = Emulator | EmulatorCluster;
type ControlTarget = Pick<Emulator, "controlUrl">;

/**
 * One program's stack for the enclosing file or describe block (call it inside the describe that
 * needs it, so a skipped block starts nothing): the emulators, a temp folder with the state file,
 * and `run`, with the example's programs, its project, the `svc:` connection and the program's own
 * config. The engine double runs the program in this process (test/support/inline.ts), with every SVC_*
 * variable removed from the provider host's environment.
 */
export function useProgram(options: ProgramOptions): ProgramHarness {
  const { emu, emus } = useEmulators({ count: options.emulators, clusters: options.clusters });
  const dir = path.join(os.tmpdir(), `${options.project}-${randomBytes(6).toString("hex")}`);
  const state = path.join(dir, "stack.json");
  const example = (step: string) => path.join(root, "dist/examples", options.example ?? "", step, "index.js");
  const step1 = example("");
  const step2 = example("step2");
  const programOf = (step: 1 | 2 | string | undefined): string => {
    if (typeof step === "string") return step;
    if (step === 2) return step2;
    if (options.program === undefined) return step1;
    return typeof options.program === "string" ? options.program : options.program(harness);
  };

  function svcConfig(): { config: Config; secretConfig: Config } {
    const services = options.services ?? ["run", "secrets"];
    const config: Config = {};
    const secretConfig: Config = {};
    if (services.includes("run")) {
      config["svc:runUrl"] = emu.runUrl;
      secretConfig["svc:runToken"] = emu.tokens.runAdmin;
    }
    if (services.includes("secrets")) {
      config["svc:secretsUrl"] = emu.secretsUrl;
      secretConfig["svc:secretsToken"] = emu.tokens[options.secretsToken ?? "secretsUser"];
    }
    return { config, secretConfig };
  }

  const harness: ProgramHarness = {
    emu, emus, dir, state, step1, step2,
    run(operation, step, overrides = {}) {
      const svc = svcConfig();
      return runInline({
        operation,
        program: programOf(step),
        state: overrides.state ? path.resolve(dir, overrides.state) : state,
        cwd: options.cwd?.(harness) ?? root,
        stack: options.stack ?? "dev",
        project: options.project,
        config: { ...svc.config, ...options.config?.(harness), ...overrides.config },
        secretConfig: { ...svc.secretConfig, ...options.secretConfig?.(harness), ...overrides.secretConfig },
        env: withoutSvcEnv(),
      });
    },
    ops: (r) => Object.fromEntries(r.steps.map((s) => [s.name, s.op])),
    stateText: (file) => fs.readFileSync(file ? path.resolve(dir, file) : state, "utf8"),
    secretsApi: (method, p, body, target = emu) => secretsApi(target, method, p, body),
    get: (p, target = emu) => secretsApi(target, "GET", p),
    runApi: (method, p, body) => runApi(emu, method, p, body),
    control: (method, p, body, target = emu) => control(target, method, p, body),
    requests: (target = emu) => requests(target),
    clearRequests: async (target = emu) => { await control(target, "DELETE", "/requests"); },
    writes: async (target = emu) => (await requests(target)).filter((q) => !["GET", "LIST"].includes(q.method)).map((q) => `${q.method} ${q.path}`),
  };

  beforeAll(async () => {
    const compiled = options.example ? step1 : path.join(root, "dist/src/index.js");
    if (!fs.existsSync(compiled)) throw new Error(`${compiled} is missing: run npm run build (npm test does)`);
    fs.mkdirSync(dir);
    await options.setup?.(harness);
  });
  afterAll(async () => {
    await options.teardown?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return harness;
}
