import { describe, expect, it } from "vitest";
import { check, diff } from "../../src/core/provider";
import { UNKNOWN } from "../../src/core/unknown";
import { createOnce } from "../../src/core/createOnce";
import { plainJson } from "../../src/core/json";
import { ServerError, TransportError, InvalidInputError, RateLimitedError } from "../../src/http";
import { templateDefinition } from "../../src/secrets/transform/template";
import { alphabetDefinition } from "../../src/secrets/transform/alphabet";
import { roleDefinition } from "../../src/secrets/transform/role";
import { notificationConfigurationDefinition as nc } from "../../src/runs/notificationConfiguration";

const PROVIDER = { __provider: "exports.handler = ..." };

describe("check", () => {
  it("fills defaults and accepts a valid template", () => {
    const r = check(templateDefinition, { name: "ssn", pattern: "(\\d{3})-\\d{2}", ...PROVIDER });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toMatchObject({ name: "ssn", mount: "transform", type: "regex" });
  });

  it("names the property and the rule for every problem", () => {
    const r = check(templateDefinition, { name: "a/b", pattern: "\\d+", type: "fpe", mount: "/x" });
    const byProp = Object.fromEntries(r.failures.map((f) => [f.property, f.reason]));
    expect(byProp.name).toMatch(/must not contain \//);
    expect(byProp.pattern).toMatch(/capture group/);
    expect(byProp.type).toMatch(/regex/);
    expect(byProp.mount).toMatch(/slashes/);
  });

  it("reports a pattern that does not compile", () => {
    const r = check(templateDefinition, { name: "x", pattern: "(\\d" });
    expect(r.failures).toEqual([{ property: "pattern", reason: expect.stringMatching(/does not compile/) }]);
  });

  it("skips values that are unknown during preview, even for booleans and lists", () => {
    expect(check(templateDefinition, { name: UNKNOWN, pattern: UNKNOWN }).failures).toEqual([]);
    const r = check(nc, { workspaceId: UNKNOWN, name: "n", destinationType: UNKNOWN, url: UNKNOWN, enabled: UNKNOWN, triggers: UNKNOWN });
    expect(r.failures).toEqual([]);
    expect(check(nc, { workspaceId: "ws-1", name: "n", destinationType: "generic", url: "https://x", triggers: ["run:created", UNKNOWN] }).failures).toEqual([]);
  });

  it("applies the notification rules of the seed", () => {
    const base = { workspaceId: "ws-1", name: "n" };
    const props = (v: object) => check(nc, { ...base, ...v }).failures.map((f) => `${f.property}: ${f.reason}`);
    expect(props({ destinationType: "generic" })).toEqual(["url: is required for destination type generic"]);
    expect(props({ destinationType: "chat-a", url: "ftp://x" })).toEqual(["url: must be an http or https URL"]);
    expect(props({ destinationType: "email", url: "https://x" })).toEqual(["url: must not be set for destination type email"]);
    expect(props({ destinationType: "generic", url: "https://x", emailUsers: ["user-1"] })).toEqual(["emailUsers: is only allowed for destination type email"]);
    expect(props({ destinationType: "webhook", url: "https://x" })[0]).toMatch(/^destinationType: must be one of generic, email/);
    expect(props({ destinationType: "generic", url: "https://x", triggers: ["run:created", "run:exploded"] })[0]).toMatch(/^triggers\[1\]: must be one of/);
    expect(props({ destinationType: "email", emailUsers: ["user-1"] })).toEqual([]);
  });

  it("treats triggers as a set", () => {
    const r = check(nc, { workspaceId: "ws-1", name: "n", destinationType: "generic", url: "https://x", triggers: ["run:errored", "run:created", "run:errored"] });
    expect(r.inputs.triggers).toEqual(["run:created", "run:errored"]);
  });

  it("rejects alphabets with repeats or too few characters", () => {
    expect(check(alphabetDefinition, { name: "a", alphabet: "aa" }).failures[0]).toEqual({ property: "alphabet", reason: "must not repeat a character" });
    expect(check(alphabetDefinition, { name: "a", alphabet: "a" }).failures[0].reason).toMatch(/at least 2/);
  });
});

describe("diff", () => {
  const tmpl = { name: "ssn", mount: "transform", type: "regex", pattern: "(\\d)" };

  it("reports no change when only the serialized provider text differs", () => {
    expect(diff(templateDefinition, { ...tmpl, __provider: "a" }, { ...tmpl, __provider: "b" })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  it("updates in place for mutable fields", () => {
    expect(diff(templateDefinition, tmpl, { ...tmpl, pattern: "(\\w)" })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("replaces on a new name with create-before-delete (new path)", () => {
    expect(diff(templateDefinition, tmpl, { ...tmpl, name: "ssn2" })).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
  });

  it("deletes first when the replacement keeps the identity", () => {
    const d = diff(nc, { workspaceId: "ws-1", destinationType: "generic" }, { workspaceId: "ws-1", destinationType: "email" });
    expect(d.replaces).toEqual(["destinationType"]);
    expect(d.deleteBeforeReplace).toBe(false); // server-assigned id: a new object never collides
  });

  it("counts an unknown value as a change and an unknown immutable value as a replace", () => {
    expect(diff(templateDefinition, tmpl, { ...tmpl, pattern: UNKNOWN }).changes).toBe(true);
    expect(diff(templateDefinition, tmpl, { ...tmpl, name: UNKNOWN })).toMatchObject({ replaces: ["name"], deleteBeforeReplace: false });
  });

  it("replaces, deleting first, when a value that names other objects is unknown as a whole (the engine's question about a dependent of a delete-first replacement)", () => {
    const role = { name: "crm", mount: "transform", transformations: ["email"] };
    // A role's transformations name transformations (refers): the service refuses to delete one a role names.
    expect(diff(roleDefinition, role, { ...role, transformations: UNKNOWN })).toEqual({ changes: true, replaces: ["transformations"], deleteBeforeReplace: true });
    // Known, the same value is no change and another one an update in place.
    expect(diff(roleDefinition, role, { ...role })).toMatchObject({ changes: false, replaces: [] });
    expect(diff(roleDefinition, role, { ...role, transformations: ["email", "card"] })).toMatchObject({ changes: true, replaces: [] });
    // A value that names nothing, unknown, is still an update.
    expect(diff(templateDefinition, tmpl, { ...tmpl, pattern: UNKNOWN }).replaces).toEqual([]);
  });

  it("ignores output-only and local fields, compares sets as sets and [] as absent", () => {
    const old = { workspaceId: "ws-1", name: "n", destinationType: "generic", url: "https://x", enabled: true, triggers: ["run:created", "run:errored"], deliveryResponses: [{ code: "200" }], createdAt: "t" };
    expect(diff(nc, old, { ...old, triggers: ["run:errored", "run:created"], deliveryResponses: undefined, createdAt: undefined }).changes).toBe(false);
    expect(diff(nc, { ...old, emailUsers: [] }, { ...old }).changes).toBe(false);
    expect(diff(templateDefinition, { ...tmpl, adopt: false }, { ...tmpl, adopt: true }).changes).toBe(false);
  });

  it("diffs a write-only secret against the previous input, not a read", () => {
    const old = { workspaceId: "ws-1", name: "n", destinationType: "generic", url: "https://x", enabled: false, triggers: [], token: "s1" };
    expect(diff(nc, old, { ...old, token: "s1" }).changes).toBe(false);
    expect(diff(nc, old, { ...old, token: "s2" })).toMatchObject({ changes: true, replaces: [] });
  });
});

describe("createOnce", () => {
  const server = () => new ServerError({ service: "runs", method: "POST", path: "/x", status: 503 });
  let n = 0;
  const op = <T extends string>(o: { attempt: () => Promise<T>; find: (owned: (id: string) => boolean) => Promise<T | undefined>; maxAttempts?: number; scope?: string }) =>
    ({ scope: o.scope ?? `unit-${++n}`, idOf: (x: T) => x, ...o });

  it("uses what an ambiguous attempt created instead of creating again", async () => {
    let attempts = 0;
    const r = await createOnce(op({ attempt: async () => { attempts++; throw server(); }, find: async () => "nc-1" }));
    expect(r).toBe("nc-1");
    expect(attempts).toBe(1);
  });

  it("tries again when nothing was created, and gives up after maxAttempts", async () => {
    let attempts = 0;
    await expect(createOnce(op({ attempt: async () => { attempts++; throw new TransportError({ method: "POST", path: "/x", causeCode: "ECONNRESET", causeMessage: "reset" }); }, find: async () => undefined, maxAttempts: 3 }))).rejects.toThrow(/ECONNRESET/);
    expect(attempts).toBe(3);
  });

  it("announces only the attempts it will make, and does not wait after the last 429", async () => {
    const logs: string[] = [];
    const reset = () => new TransportError({ method: "POST", path: "/x", causeCode: "ECONNRESET", causeMessage: "reset" });
    await createOnce({ ...op({ attempt: async () => { throw reset(); }, find: async () => undefined, maxAttempts: 3 }), log: (m: string) => logs.push(m) }).catch(() => undefined);
    expect(logs.map((m) => /attempt (\d) of 3/.exec(m)?.[1])).toEqual(["2", "3"]);
    logs.length = 0;
    // A wait of the Retry-After (30 s at most) here would outlast the test's own timeout.
    await createOnce({ ...op({ attempt: async () => { throw new RateLimitedError({ status: 429, method: "POST", path: "/x", retryAfterMs: 60_000 }); }, find: async () => undefined, maxAttempts: 1 }), log: (m: string) => logs.push(m) }).catch(() => undefined);
    expect(logs).toEqual([]);
  });

  it("never retries a rejection such as invalid input", async () => {
    let attempts = 0;
    await expect(createOnce(op({ attempt: async () => { attempts++; throw new InvalidInputError({ status: 422, method: "POST", path: "/x" }); }, find: async () => "nc-x" }))).rejects.toThrow(/422/);
    expect(attempts).toBe(1);
  });

  it("looks before posting again after a 429 (a 429 may come after the server acted), then waits for Retry-After", async () => {
    let attempts = 0;
    let looks = 0;
    const r = await createOnce(op({
      attempt: async () => { if (++attempts === 1) throw new RateLimitedError({ status: 429, method: "POST", path: "/x", retryAfterMs: 5 }); return "ok"; },
      find: async () => { looks++; return undefined; },
    }));
    expect([r, attempts, looks]).toEqual(["ok", 2, 1]);
    let posted = 0;
    const taken = await createOnce(op({ attempt: async () => { posted++; throw new RateLimitedError({ status: 429, method: "POST", path: "/x" }); }, find: async () => "made-before-429" }));
    expect([taken, posted]).toEqual(["made-before-429", 1]);
  });

  it("counts Retry-After from the 429, so a lookup held by the client's pause is not followed by a second full wait", async () => {
    const logs: string[] = [];
    let attempts = 0;
    await createOnce({ ...op({
      attempt: async () => { if (++attempts === 1) throw new RateLimitedError({ status: 429, method: "POST", path: "/x", retryAfterMs: 200 }); return "ok"; },
      // The lookup stands for one the client's shared pause held for the whole Retry-After.
      find: async () => { await new Promise((r) => setTimeout(r, 250)); return undefined; },
    }), log: (m: string) => logs.push(m) });
    expect(logs).toEqual(["create refused with 429 and nothing was created; trying again in 0 ms"]);
  });

  it("never hands one object to two creates: a lookup skips ids other creates own and waits for posts in flight", async () => {
    const scope = "unit-shared";
    const server: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // A: its POST creates a-1 but the response is lost. B: its POST is slow and succeeds with b-1.
    const a = createOnce(op({ scope, attempt: async () => { server.push("a-1"); throw server503(); }, find: async (owned) => server.find((id) => !owned(id)) }));
    const b = createOnce(op({ scope, attempt: async () => { await gate; server.push("b-1"); return "b-1"; }, find: async () => undefined }));
    setTimeout(release, 20);
    expect(await Promise.all([a, b])).toEqual(["a-1", "b-1"]);
    const c = createOnce(op({ scope, attempt: async () => { throw server503(); }, find: async (owned) => server.find((id) => !owned(id)) }));
    expect(await c.catch(() => "none")).toBe("none"); // both existing ids are owned: c takes neither
  });
  const server503 = () => new ServerError({ service: "runs", method: "POST", path: "/x", status: 503 });
});

describe("check output", () => {
  it("is plain JSON: no undefined members for absent optional sets (the host's Struct rejects them)", () => {
    const r = check(nc, { workspaceId: "ws-1", name: "n", destinationType: "generic", url: "https://x" });
    expect(Object.values(r.inputs)).not.toContain(undefined);
    expect("emailUsers" in r.inputs).toBe(false);
  });
});

describe("plainJson", () => {
  it("copies exactly what a JSON round trip would give", () => {
    const values: unknown[] = [
      { a: 1, b: undefined, c: [1, undefined, () => 1, "x"], d: { e: null, f: NaN, g: Infinity }, h: () => 1 },
      [{ x: undefined }, [], {}], "text", 0, false, null,
      { when: new Date(0), buf: Buffer.from("ab"), nested: { deep: [{ deeper: [true] }] } },
    ];
    for (const v of values) expect(plainJson(v)).toEqual(JSON.parse(JSON.stringify(v)));
    const copy = plainJson(values[0] as object);
    expect(copy).not.toBe(values[0]);
  });

  it("refuses a BigInt, which the host could not send", () => {
    expect(() => plainJson({ n: 1n })).toThrow(/BigInt/);
  });
});
