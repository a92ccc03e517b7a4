// The per-example expectations file, examples/<name>/cli.json (format in docs/contributing.md, "Real-CLI expectations").
import * as fs from "node:fs";
import * as path from "node:path";
import { request } from "undici";
import type { Emulator } from "../../src/emulator";
import { root } from "../support/dist";
import { control } from "../support/emulator";
import { startPostgres, type Postgres } from "../support/postgres";

export interface ServiceRequest {
  service: "run" | "secrets";
  /** Which secrets cluster (default 0), with its root token. */
  cluster?: number;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
}

export interface Expectations {
  project: string;
  /** PUT /_emulator/clock before the example, e.g. { "autoAdvanceMs": 20 } so runs move on. */
  emulator?: Record<string, unknown>;
  config?: Record<string, string>;
  secretConfig?: Record<string, string>;
  /** Every resource the first preview plans to create (and the first up creates). */
  create: string[];
  /** Stack outputs after the first up (a subset). */
  outputs?: Record<string, unknown>;
  /** Output properties that must be stored as secrets, per resource. */
  secretOutputs?: Record<string, string[]>;
  /** Text the CLI output of the first up must show per resource (progress messages). */
  progress?: Record<string, string[]>;
  /**
   * The step2 plan: op per resource, the property names `preview --diff` marks, delete-first order;
   * `cascadeFrom` names the resource replaced delete-first whose replacement the engine cascades to
   * this one (none of its own inputs changed).
   */
  step2: Record<string, { op: string; properties?: string[]; deleteFirst?: boolean; cascadeFrom?: string }>;
  /** Stack outputs after step2's up (a subset). */
  step2Outputs?: Record<string, unknown>;
  /** Reads after destroy and the `data` (a subset) each must answer: what the example leaves on the services. */
  afterDestroy?: { request: ServiceRequest; status?: number; data: Record<string, unknown> }[];
  outOfBand?: {
    change?: { resource: string; outputs: Record<string, unknown>; request: ServiceRequest };
    delete?: { resource: string; request: ServiceRequest };
  };
  /** Requests the program's functions make on every up (`"POST /v1/..."`), so a second up is not "no writes". */
  functionCalls?: string[];
  /** The side-effecting calls step 2's preview announces, as pulumi-svc-review lists them (`encode role="payments" ...`). */
  plannedCalls?: string[];
  /** The resources the review of step 2 lists under "Data at risk" (docs/review.md); checked when given. */
  atRisk?: string[];
  /** Why there is no out-of-band change or delete for this example. */
  outOfBandNote?: string;
  /**
   * Control requests (`/_emulator` + path) before the example; with `saveAs`, the answer's fields
   * fill `{<saveAs>.<field>}` placeholders in config values.
   */
  setup?: { method: "POST" | "PUT"; path: string; body?: unknown; saveAs?: string }[];
  /**
   * A throwaway PostgreSQL for the example (test/support/postgres.ts): `sql` runs as the superuser
   * first; `{pgPort}`, `{pgAdminUser}` and `{pgAdminPassword}` fill config values.
   */
  postgres?: { sql?: string[] };
}

export interface Example { name: string; dir: string; expectations?: Expectations }

/** Every Pulumi program under examples/ (a folder whose index.ts imports @pulumi/pulumi). */
export function examples(): Example[] {
  const base = path.join(root, "examples");
  return fs.readdirSync(base, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => ({ name: d.name, dir: path.join(base, d.name) }))
    .filter((e) => {
      const index = path.join(e.dir, "index.ts");
      return fs.existsSync(path.join(e.dir, "cli.json")) || (fs.existsSync(index) && fs.readFileSync(index, "utf8").includes("@pulumi/pulumi"));
    })
    .map((e) => {
      const file = path.join(e.dir, "cli.json");
      return { ...e, expectations: fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Expectations) : undefined };
    });
}

/**
 * Replaces {runUrl}, {secretsUrl}, {controlUrl}, {workspaceId} and {organization} in config values and
 * paths, and per secrets cluster i {secretsUrl<i>} and {secretsToken<i>} (its root token).
 */
export function fill(text: string, emu: Emulator, extra: Record<string, string> = {}): string {
  const clusters = Object.fromEntries((emu.clusters ?? []).flatMap((c) => [[`secretsUrl${c.index}`, c.secretsUrl], [`secretsToken${c.index}`, c.secretsToken]]));
  const values: Record<string, string> = {
    runUrl: emu.runUrl, secretsUrl: emu.secretsUrl, controlUrl: emu.controlUrl, workspaceId: emu.workspaceId, organization: emu.organization,
    ...clusters,
    ...extra,
  };
  return text.replace(/\{([\w.]+)\}/g, (m, k: string) => values[k] ?? m);
}

export function fillAll(map: Record<string, string> | undefined, emu: Emulator, extra: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, fill(v, emu, extra)]));
}

/** An example's emulator and stack config, ready for its first preview. */
export interface Prepared {
  /** `svc:*` and the example's own config, placeholders filled. */
  config: Record<string, string>;
  secretConfig: Record<string, string>;
  /** Values of setup answers and of the example's PostgreSQL, for {placeholders}. */
  extra: Record<string, string>;
  /** The example's PostgreSQL, when cli.json asks for one. */
  postgres?: Postgres;
  /** Stops the example's PostgreSQL and the emulator's clock. */
  close(): Promise<void>;
}

/**
 * Resets every secrets cluster of the emulator, sets its clock, runs the setup requests and starts
 * the example's PostgreSQL (a new one on every call).
 */
export async function prepareExample(exp: Expectations, emu: Emulator): Promise<Prepared> {
  for (const c of emu.clusters) await control({ ...emu, controlUrl: c.controlUrl }, "POST", "/reset");
  await control(emu, "PUT", "/clock", exp.emulator ?? { autoAdvanceMs: 0 });
  const extra: Record<string, string> = {};
  for (const step of exp.setup ?? []) {
    const answer = await control<Record<string, unknown>>(emu, step.method, step.path, step.body);
    if (step.saveAs) for (const [k, v] of Object.entries(answer ?? {})) if (typeof v === "string") extra[`${step.saveAs}.${k}`] = v;
  }
  let pg: Postgres | undefined;
  if (exp.postgres) {
    pg = await startPostgres();
    for (const sql of exp.postgres.sql ?? []) await pg.query(sql);
    Object.assign(extra, { pgPort: String(pg.port), pgAdminUser: pg.admin.username, pgAdminPassword: pg.admin.password });
  }
  return {
    config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, ...fillAll(exp.config, emu, extra) },
    secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser, ...fillAll(exp.secretConfig, emu, extra) },
    extra,
    postgres: pg,
    async close() {
      if (exp.emulator) await control(emu, "PUT", "/clock", { autoAdvanceMs: 0 });
      await pg?.stop();
    },
  };
}

/** Stack outputs that are plain strings or numbers, as `{output.<name>}` placeholders. */
export function outputValues(outputs: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(outputs)
    .filter(([, v]) => typeof v === "string" || typeof v === "number")
    .map(([k, v]) => [`output.${k}`, String(v)]));
}

/**
 * A request straight to a service with an all-powerful token: the "out of band" edit. Its path and
 * body may use the placeholders of `fill` and those in `extra` (e.g. `{output.<name>}`).
 */
export async function serviceRequest(emu: Emulator, r: ServiceRequest, extra: Record<string, string> = {}): Promise<number> {
  return (await serviceCall(emu, r, extra)).status;
}

/** serviceRequest, with the answer's body (parsed JSON, or undefined when empty). */
export async function serviceCall(emu: Emulator, r: ServiceRequest, extra: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const secrets = r.service === "secrets";
  const cluster = emu.clusters[r.cluster ?? 0];
  if (secrets && !cluster) throw new Error(`the emulator has no secrets cluster ${r.cluster}`);
  const res = await request(`${secrets ? cluster.secretsUrl : emu.runUrl}${fill(r.path, emu, extra)}`, {
    method: r.method,
    headers: {
      ...(secrets ? { "x-svc-token": cluster.secretsToken } : { authorization: `Bearer ${emu.tokens.runAdmin}` }),
      ...(r.body === undefined ? {} : { "content-type": secrets ? "application/json" : "application/vnd.api+json" }),
    },
    body: r.body === undefined ? undefined : fill(JSON.stringify(r.body), emu, extra),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}
