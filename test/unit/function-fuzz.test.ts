// Issue 17, check for functions: every function of the public surface refuses unknown (misspelt)
// arguments, huge strings, path values and prototype keys at the argument they are in, before any
// request. The functions are found by walking what src/index.ts exports, so new ones are covered.
import { beforeAll, describe, expect, it } from "vitest";
import * as svc from "../../src";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";
import { useCountingServer } from "../support/counting";

type Fn = (args: Record<string, unknown>) => Promise<unknown>;

/** Promise forms that call a service (not Output forms, iterators, or local helpers). */
function functions(): [string, Fn][] {
  const out: [string, Fn][] = [];
  // Local helpers, and functions whose only parameter is the options (they take no arguments).
  const local = new Set(["connection", "verifyNotificationSignature", "parseNotification", "listEntityAliases", "listDualFactorMethods"]);
  const walk = (o: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === "function") {
        if (/^[a-z]/.test(k) && !local.has(k) && !/(Output|Iterator|All)$/.test(k)) out.push([`${prefix}${k}`, v as Fn]);
      } else if (v !== null && typeof v === "object" && !Array.isArray(v)) walk(v as Record<string, unknown>, `${prefix}${k}.`);
    }
  };
  walk(svc as unknown as Record<string, unknown>, "");
  return out;
}

const { requests } = useCountingServer();
/** Every input name of every kind: the argument names a function may have. */
const NAMES = new Set<string>();

beforeAll(async () => {
  for (const kind of KIND_NAMES) {
    const def = (await kindDefinition(kind))!;
    for (const k of Object.keys((def.schema() as unknown as { shape?: object }).shape ?? {})) NAMES.add(k);
  }
  for (const k of ["role", "runId", "setName", "id", "type", "batchInput", "values", "value", "serviceAccountNames", "token", "limit", "continuation"]) NAMES.add(k);
});

interface Refusal { name?: string; problems?: { path: string; message: string }[]; message?: string }

/** Calls a function: its refusal, or undefined when it was accepted (then it may have sent a request). */
async function outcomeOf(fn: Fn, args: Record<string, unknown>, opts?: Record<string, unknown>): Promise<{ refusal?: Refusal; requests: number }> {
  const before = requests();
  const refusal = await Promise.resolve().then(() => (fn as (a: unknown, o?: unknown) => Promise<unknown>)(args, opts)).then(() => undefined, (e: Refusal) => e);
  return { refusal, requests: requests() - before };
}

/** A refusal before any request, as an InvalidInputError; anything else fails the test. */
async function refusal(fn: Fn, args: Record<string, unknown>, label: string, opts?: Record<string, unknown>): Promise<Refusal> {
  const { refusal: r, requests } = await outcomeOf(fn, args, opts);
  expect(r, `${label} was accepted`).toBeDefined();
  expect(requests, `${label} sent a request`).toBe(0);
  expect(r!.name, `${label}: ${r!.message}`).toBe("InvalidInputError");
  return r!;
}

const refusedAt = (r: Refusal, key: string) => (r.problems ?? []).some((p) => p.path === key || p.path.startsWith(`${key}.`) || p.path.startsWith(`${key}[`));

/** Arguments that become a path segment of the request wherever a function takes them. */
const SEGMENT_ARGS = ["name", "role", "runId", "workspaceId", "transformation", "setName", "id", "type", "kmsName", "keyName", "secondaryClusterId", "store", "mount"];

describe("function arguments are checked before any request", () => {
  const all = functions();

  it("finds the functions to check", () => {
    expect(all.length).toBeGreaterThan(50);
  });

  it.each(all)("%s refuses an unknown argument, naming it", async (name, fn) => {
    const r = await refusal(fn, { zzNotAnArgument: 1 }, `${name}({ zzNotAnArgument })`);
    expect(r.problems, r.message).toContainEqual({ path: "zzNotAnArgument", message: expect.stringMatching(/^unknown property/) });
  });

  it.each(all)("%s refuses huge strings and path values in path arguments, and __proto__ keys in any, naming the argument", async (name, fn) => {
    const accepted: string[] = [];
    const tryValue = async (key: string, value: unknown) => {
      const r = await refusal(fn, { [key]: value }, `${name}({ ${key} })`);
      if (!refusedAt(r, key)) accepted.push(`${key} = ${JSON.stringify(value)?.slice(0, 20)}: ${r.message}`);
    };
    for (const key of SEGMENT_ARGS) {
      // A mount keeps its slashes on purpose (engines mount at nested paths such as transform/eu).
      for (const value of ["x".repeat(100_000), "..", ...(key === "mount" ? [] : ["a/b"])]) await tryValue(key, value);
    }
    for (const key of NAMES) await tryValue(key, JSON.parse('{"__proto__":{"polluted":1}}'));
    expect(accepted).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each(all)("%s refuses a connection URL with credentials, dot segments, a query or a fragment, before any request", async (name, fn) => {
    for (const url of ["http://user:pw-9Xq2@127.0.0.1:9/v1", "http://127.0.0.1:9/v1/../x", "http://127.0.0.1:9/v1?x=1", "http://127.0.0.1:9/v1#f"]) {
      const { refusal: r, requests } = await outcomeOf(fn, {}, { connection: { url, token: "t0ken-fuzz-0001" } });
      expect(requests, `${name} with ${url}`).toBe(0);
      expect(r, `${name} with ${url}`).toBeDefined();
      expect(r!.message).not.toContain("pw-9Xq2");
    }
  });
});
