// The per-example expectations file, examples/<name>/cli.json (format in the README, Development).
import * as fs from "node:fs";
import * as path from "node:path";
import { request } from "undici";
import type { Emulator } from "../../src/emulator";
import { root } from "../support/dist";

export interface ServiceRequest {
  service: "run" | "secrets";
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
  /** The step2 plan: op per resource, the property names `preview --diff` marks, delete-first order. */
  step2: Record<string, { op: string; properties?: string[]; deleteFirst?: boolean }>;
  outOfBand?: {
    change?: { resource: string; outputs: Record<string, unknown>; request: ServiceRequest };
    delete?: { resource: string; request: ServiceRequest };
  };
  /** Requests the program's functions make on every up (`"POST /v1/..."`), so a second up is not "no writes". */
  functionCalls?: string[];
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

/** A request straight to a service with an all-powerful token: the "out of band" edit. */
export async function serviceRequest(emu: Emulator, r: ServiceRequest): Promise<number> {
  const secrets = r.service === "secrets";
  const res = await request(`${secrets ? emu.secretsUrl : emu.runUrl}${fill(r.path, emu)}`, {
    method: r.method,
    headers: {
      ...(secrets ? { "x-svc-token": emu.tokens.secretsRoot } : { authorization: `Bearer ${emu.tokens.runAdmin}` }),
      ...(r.body === undefined ? {} : { "content-type": secrets ? "application/json" : "application/vnd.api+json" }),
    },
    body: r.body === undefined ? undefined : JSON.stringify(r.body),
  });
  await res.body.dump();
  return res.statusCode;
}
