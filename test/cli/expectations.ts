// The per-example expectations file, examples/<name>/cli.json (format in docs/contributing.md, "Real-CLI expectations").
import * as fs from "node:fs";
import * as path from "node:path";
import { request } from "undici";
import { z } from "zod";
import type { Emulator } from "../../src/emulator";
import { root } from "../support/dist";
import { control } from "../support/emulator";
import { startPostgres, type Postgres } from "../support/postgres";

const strings = z.array(z.string());
const values = z.record(z.string(), z.unknown());

const serviceRequestShape = z.strictObject({
  service: z.enum(["run", "secrets"]),
  /** Which secrets cluster (default 0), with its root token. */
  cluster: z.number().int().nonnegative().optional(),
  method: z.enum(["GET", "POST", "PATCH", "DELETE"]),
  path: z.string().min(1),
  body: z.unknown().optional(),
});
export type ServiceRequest = z.infer<typeof serviceRequestShape>;

/**
 * The shape of examples/<name>/cli.json (its keys in docs/contributing.md, "Real-CLI expectations"):
 * a key the lifecycle does not know, or a partial out-of-band edit, would drop its steps unseen.
 */
const expectations = z.strictObject({
  project: z.string().min(1),
  /** PUT /_emulator/clock before the example, e.g. { "autoAdvanceMs": 20 } so runs move on. */
  emulator: values.optional(),
  config: z.record(z.string(), z.string()).optional(),
  secretConfig: z.record(z.string(), z.string()).optional(),
  /** Every resource the first preview plans to create (and the first up creates). */
  create: strings.min(1),
  /** Stack outputs after the first up (a subset). */
  outputs: values.optional(),
  /** Output properties that must be stored as secrets, per resource. */
  secretOutputs: z.record(z.string(), strings).optional(),
  /** Text the CLI output of the first up must show per resource (progress messages). */
  progress: z.record(z.string(), strings).optional(),
  /**
   * The step2 plan: op per resource, the property names `preview --diff` marks, delete-first order;
   * `cascadeFrom` names the resource replaced delete-first whose replacement the engine cascades to
   * this one (none of its own inputs changed).
   */
  step2: z.record(z.string(), z.strictObject({
    op: z.enum(["update", "replace", "create", "delete", "same"]),
    properties: strings.optional(),
    deleteFirst: z.boolean().optional(),
    cascadeFrom: z.string().optional(),
  })),
  /** Stack outputs after step2's up (a subset). */
  step2Outputs: values.optional(),
  /** Reads after destroy and the `data` (a subset) each must answer: what the example leaves on the services. */
  afterDestroy: z.array(z.strictObject({ request: serviceRequestShape, status: z.number().int().optional(), data: values })).optional(),
  /** Both steps, each complete: a step left out would drop its tests with no skip to show for them. */
  outOfBand: z.strictObject({
    change: z.strictObject({ resource: z.string().min(1), outputs: values, request: serviceRequestShape }),
    delete: z.strictObject({ resource: z.string().min(1), request: serviceRequestShape }),
  }).optional(),
  /** Why there is no out-of-band change or delete for this example (instead of `outOfBand`). */
  outOfBandNote: z.string().trim().min(1).optional(),
  /** Requests the program's functions make on every up (`"POST /v1/..."`), so a second up is not "no writes". */
  functionCalls: strings.optional(),
  /** The side-effecting calls step 2's preview announces, as pulumi-svc-review lists them (`encode role="payments" ...`). */
  plannedCalls: strings.optional(),
  /** The resources the review of step 2 lists under "Data at risk" (docs/review.md); checked when given. */
  atRisk: strings.optional(),
  /**
   * Control requests (`/_emulator` + path) before the example; with `saveAs`, the answer's fields
   * fill `{<saveAs>.<field>}` placeholders in config values.
   */
  setup: z.array(z.strictObject({ method: z.enum(["POST", "PUT"]), path: z.string().min(1), body: z.unknown().optional(), saveAs: z.string().optional() })).optional(),
  /**
   * A throwaway PostgreSQL for the example (test/support/postgres.ts): `sql` runs as the superuser
   * first; `{pgPort}`, `{pgAdminUser}` and `{pgAdminPassword}` fill config values.
   */
  postgres: z.strictObject({ sql: strings.optional() }).optional(),
}).refine((e) => (e.outOfBand === undefined) !== (e.outOfBandNote === undefined), {
  message: "give either outOfBand (its change and its delete) or outOfBandNote (why the example has none), not both and not neither",
});
export type Expectations = z.infer<typeof expectations>;

/** cli.json's text checked against its shape: the expectations, or one line naming each problem by its path. */
export function parseExpectations(text: string, file: string): { expectations?: Expectations; problem?: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { problem: `${file}: ${(e as Error).message}` };
  }
  const r = expectations.safeParse(json);
  if (r.success) return { expectations: r.data };
  return { problem: `${file}: ${r.error.issues.map((i) => `${i.path.join(".") || "(the file)"}: ${i.message}`).join("; ")}` };
}

/** An example, and its cli.json's expectations or what is wrong with the file (missing, or not of its shape). */
export interface Example { name: string; dir: string; expectations?: Expectations; problem?: string }

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
      const where = `examples/${e.name}/cli.json`;
      return { ...e, ...(fs.existsSync(file) ? parseExpectations(fs.readFileSync(file, "utf8"), where) : { problem: `${where} is missing (format: docs/contributing.md)` }) };
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
