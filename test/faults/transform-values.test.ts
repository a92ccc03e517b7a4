// Issue 17: encode (single and batch) under faults. fpe stores nothing, so a lost encode is sent
// again; a tokenization encode stores a token the service never hands out again, so after a lost
// response an item the service now knows is reported (outcome unknown) and never sent twice. Judged
// by the store's snapshot (one token per value: 0 duplicates) and by decoding every result (0 lost).
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as transform from "../../src/secrets/transform";
import { control, secretsApi, useEmulator } from "../support/emulator";

const { emu } = useEmulator();
const raw = (path: string, body?: unknown) => secretsApi(emu, "POST", `/transform/${path}`, body);
const TWEAK = Buffer.from("1234567").toString("base64");
const CARDS = ["4111-1111-1111-1111", "5500-0000-0000-0004", "3400-0000-0000-0009", "6011-0000-0000-0004"];

beforeAll(async () => {
  process.env.SVC_MAX_RETRIES = "1";
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: (a) => a.inputs }, "proj", "stack", false);
});
beforeEach(async () => {
  await raw("transformations/fpe/card", { template: "builtin/creditcardnumber", allowed_roles: ["pay"] });
  await raw("transformations/tokenization/tok", { allowed_roles: ["pay"] });
  await raw("role/pay", { transformations: ["card", "tok"] });
});

const FAULTS: [string, Record<string, unknown>][] = [
  ["429 with Retry-After", { status: 429, retryAfter: 0 }],
  ["503", { status: 503 }],
  ["a dropped connection", { drop: true }],
];
const cells = FAULTS.flatMap(([name, how]) => (["before", "after"] as const).map((when) => [name, when, how] as const));
// More faults than the client retries (it does not retry an encode at all): the provider meets them.
const fault = (how: Record<string, unknown>, when: string) =>
  control(emu, "POST", "/faults", { method: "POST", path: "/v1/transform/encode/pay", ...how, when, count: 1 });
const faultsLeft = async () => (await control<{ faults: unknown[] }>(emu, "GET", "/faults")).faults;

/** How many tokens the tokenization store holds. */
async function tokens(): Promise<number> {
  const r = await secretsApi(emu, "POST", "/transform/transformations/tokenization/snapshot/tok", { limit: 1000 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.data.values as unknown[]).length;
}

async function decodes(transformation: string, encoded: string, plain: string): Promise<void> {
  const d = await transform.decode({ role: "pay", transformation, value: encoded, ...(transformation === "card" ? { tweak: TWEAK } : {}) });
  expect(d.decodedValue).toBe(plain);
}

describe("encode batch under faults", () => {
  it.each(cells)("fpe: %s %s the service acted → every item encoded once and decodes", async (_n, when, how) => {
    await fault(how, when);
    const r = await transform.encode({ role: "pay", batchInput: CARDS.map((value) => ({ value, transformation: "card", tweak: TWEAK })) });
    expect(await faultsLeft(), "the encode met the fault").toEqual([]);
    expect(r.batchResults).toHaveLength(CARDS.length);
    for (const [i, item] of r.batchResults!.entries()) {
      expect(item.error).toBeUndefined();
      await decodes("card", item.encodedValue!, CARDS[i]!);
    }
  });

  it.each(cells)("tokenization: %s %s the service acted → one token per value, every result decodes or is reported", async (_n, when, how) => {
    const before = await tokens();
    await fault(how, when);
    const r = await transform.encode({ role: "pay", batchInput: CARDS.map((value) => ({ value, transformation: "tok" })) });
    expect(await faultsLeft(), "the encode met the fault").toEqual([]);
    expect(await tokens() - before, "no value tokenized twice, none lost").toBe(CARDS.length);
    const items = r.batchResults!;
    expect(items).toHaveLength(CARDS.length);
    for (const [i, item] of items.entries()) {
      if (item.encodedValue !== undefined) await decodes("tok", item.encodedValue, CARDS[i]!);
      else expect(item.error).toMatch(/outcome unknown: .*not sent again, so no second token was made/);
    }
    // Before the service acted nothing is unknown; after, every item of the lost batch is.
    expect(items.filter((x) => x.encodedValue !== undefined).length).toBe(when === "before" ? CARDS.length : 0);
    for (const item of items) expect(item.error ?? "").not.toContain(CARDS[0]);
  });

  it("a batch mixing fpe and tokenization items after a lost response: fpe items are sent again, tokenization items reported", async () => {
    const before = await tokens();
    await fault({ drop: true }, "after");
    const r = await transform.encode({ role: "pay", batchInput: [{ value: CARDS[0]!, transformation: "card", tweak: TWEAK }, { value: CARDS[1]!, transformation: "tok" }] });
    expect(await tokens() - before).toBe(1);
    await decodes("card", r.batchResults![0]!.encodedValue!, CARDS[0]!);
    expect(r.batchResults![1]!.error).toMatch(/outcome unknown/);
  });

  it.each(cells)("a single tokenization value: %s %s the service acted → one token, or a typed error saying why it was not repeated", async (_n, when, how) => {
    const before = await tokens();
    await fault(how, when);
    const outcome = await transform.encode({ role: "pay", transformation: "tok", value: CARDS[2]! }).then((r) => r, (e: Error) => e);
    expect(await tokens() - before).toBe(1);
    if (when === "before") await decodes("tok", (outcome as { encodedValue: string }).encodedValue, CARDS[2]!);
    else {
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as Error & { code?: string }).code).toMatch(/^(server|transport|rate_limited)$/);
      expect((outcome as Error).message).toMatch(/outcome unknown: .*no second token was made/);
    }
  });

  it("decode, validate, tokenized and metadata change nothing, so the client repeats them after a 503", async () => {
    const enc = await transform.encode({ role: "pay", transformation: "tok", value: CARDS[3]! });
    for (const op of ["decode", "validate", "tokenized", "metadata"] as const) {
      await control(emu, "POST", "/faults", { method: "POST", path: `/v1/transform/${op}/pay`, status: 503, when: "after" });
      const value = op === "tokenized" ? CARDS[3]! : enc.encodedValue!;
      await expect(transform[op]({ role: "pay", transformation: "tok", value })).resolves.toBeDefined();
      expect(await faultsLeft(), op).toEqual([]);
    }
  });
});
