// What a provider host's first Check loads (docs/performance.md, "Cold start in the provider host"):
// a create's Check reads what the create could be confused with, and for that one read loads
// undici's Agent, not undici's index; zod's locales wait until something asks for one. Each case
// runs the built runtime in a fresh Node process, as a host does. Counts of modules, never a time.
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { fromDist, root } from "../support/dist";

const RUNTIME = path.join(root, "dist/src/runtime.js");
const CONFIG = { "svc:secretsUrl": "http://127.0.0.1:9/v1", "svc:secretsToken": "cold-start-token-0001" };

/** A module of one of zod's locales (its index is where the deferred entry stands). */
const isLocale = (m: string) => m.startsWith("zod/v4/locales/") && !m.endsWith("/index.cjs");

/** Runs `body` (with `rt` the runtime, configured) in a fresh process and returns what it printed as JSON. */
function inFreshProcess(body: string, before = ""): any {
  const script = `
    const path = require("path");
    ${before}
    const loadedBefore = new Set(Object.keys(require.cache));
    const loaded = () => Object.keys(require.cache).filter((k) => !loadedBefore.has(k)).map((k) => k.slice(k.lastIndexOf("node_modules/") + 13));
    const rt = require(${JSON.stringify(RUNTIME)});
    (async () => {
      await rt.configure({ config: { get: (k) => (${JSON.stringify(CONFIG)})[k] } });
      ${body}
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const env: Record<string, string> = { ...process.env } as Record<string, string>;
  for (const k of Object.keys(env)) if (k.startsWith("SVC_")) delete env[k];
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: root, env, encoding: "utf8" }));
}

describe("a provider host's first Check", () => {
  it("of a create loads undici's Agent for its read, not undici's index, and no zod locale but English", () => {
    const out = inFreshProcess(`
      const r = await rt.call("secrets:TransformTemplate", "check", [{}, { name: "t", pattern: "(\\\\d{4})" }]);
      console.log(JSON.stringify({ failures: r.failures, loaded: loaded() }));`);
    expect(out.failures).toEqual([]);
    const loaded = out.loaded as string[];
    // The read was sent (to a port that refuses it, which leaves no record and fails nothing).
    expect(loaded).toContain("undici/lib/dispatcher/agent.js");
    expect(loaded).not.toContain("undici/index.js");
    expect(loaded.filter((m) => m.startsWith("undici/lib/web/"))).toEqual([]);
    expect(loaded.filter(isLocale)).toEqual(["zod/v4/locales/en.cjs"]);
    // Who uses each kind's objects is read by a delete's guard, not by a Check.
    expect(loaded.filter((m) => m.endsWith("/kindUsers.js"))).toEqual([]);
  });

  it("leaves zod's locales whole: each is loaded when the program asks for it", () => {
    const plain = JSON.parse(execFileSync(process.execPath, ["-e",
      `const { z } = require("zod"); console.log(JSON.stringify(Object.keys(z.locales)))`], { cwd: root, encoding: "utf8" }));
    const out = inFreshProcess(`
      await rt.call("secrets:TransformTemplate", "check", [{}, { name: "t", pattern: "(\\\\d{4})" }]);
      const { z } = require("zod");
      const before = loaded().filter(${isLocale}).length;
      const fr = z.locales.fr;
      z.config(fr());
      const french = z.string().safeParse(1).error.issues[0].message;
      z.config(z.locales.en());
      console.log(JSON.stringify({ keys: Object.keys(z.locales), before, after: loaded().filter(${isLocale}).length, french, en: "en" in z.locales }));`);
    expect(plain.length).toBeGreaterThan(40);
    expect(out.keys).toEqual(plain);
    expect(out.en).toBe(true);
    expect(out.before).toBe(1);
    expect(out.after).toBeGreaterThan(40);
    expect(out.french).toMatch(/attendu/);
  });

  it("takes zod's locales as they are when zod was loaded first", () => {
    const out = inFreshProcess(`
      const file = require.resolve("zod/v4/locales");
      console.log(JSON.stringify({ same: require.cache[file].exports === real, locales: Object.keys(require("zod").z.locales).length }));`,
    `require("zod"); const real = require.cache[require.resolve("zod/v4/locales")].exports;`);
    expect(out.same).toBe(true);
    expect(out.locales).toBeGreaterThan(40);
  });

  it("finds undici's Agent where undici defines it (else it would fall back to the index)", () => {
    const { AGENT_MODULE, undiciAgent } = fromDist<typeof import("../../src/http/agentClass")>("src/http/agentClass.js");
    const fromIndex = (require("undici") as typeof import("undici")).Agent;
    expect(require(AGENT_MODULE)).toBe(fromIndex);
    expect(undiciAgent()).toBe(fromIndex);
  });
});
