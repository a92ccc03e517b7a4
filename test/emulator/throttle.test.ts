// PUT /_emulator/throttle: 429 with Retry-After above N requests held at once or above a rate, and
// the peak of requests held at once, which the concurrency proofs read.
import { describe, expect, test } from "vitest";
import { svcToken } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";

const { emu } = useEmulator();

const throttle = (method: "PUT" | "GET" | "DELETE", body?: unknown) => call(method, `${emu.controlUrl}/throttle`, body === undefined ? {} : { body });
const readAlphabets = () => call("GET", `${emu.secretsUrl}/transform/alphabet?list=true`, { headers: svcToken(emu.tokens.secretsRoot) });

describe("throttle", () => {
  test("above maxConcurrent held at once: 429 with Retry-After; the peak counts every request held", async () => {
    expect((await throttle("PUT", { maxConcurrent: 2, retryAfter: 3 })).status).toBe(200);
    // Two requests held by a delay, then three more while both are still held.
    await call("POST", `${emu.controlUrl}/faults`, { body: { path: "/v1/transform/alphabet", delayMs: 3000, count: 2 } });
    const held = [readAlphabets(), readAlphabets()];
    while ((await throttle("GET")).json.inFlight < 2) await new Promise((r) => setTimeout(r, 10));
    const refused = await Promise.all([readAlphabets(), readAlphabets(), readAlphabets()]);
    expect(refused.map((r) => [r.status, r.headers["retry-after"]])).toEqual([[429, "3"], [429, "3"], [429, "3"]]);
    expect(refused[0].json.errors).toEqual(["throttled: too many requests"]);
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([404, 404]); // served: no alphabet yet
    const report = (await throttle("GET")).json;
    expect(report).toMatchObject({ maxConcurrent: 2, inFlight: 0, throttled: 3 });
    expect(report.peak).toBeGreaterThanOrEqual(3);
    const log = (await call("GET", `${emu.controlUrl}/requests`)).json.requests as { status: number }[];
    expect(log.filter((r) => r.status === 429)).toHaveLength(3);
  });

  test("a dozen requests delayed at once raise no MaxListenersExceeded warning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      await call("POST", `${emu.controlUrl}/faults`, { body: { path: "/v1/transform/alphabet", delayMs: 50, count: 12 } });
      await Promise.all(Array.from({ length: 12 }, readAlphabets));
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });

  test("above the rate: 429 until the second ends; nothing is changed by a refused write", async () => {
    await throttle("PUT", { rate: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await call("POST", `${emu.secretsUrl}/transform/alphabet/a${i}`, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "ab" } });
      statuses.push(r.status);
      if (r.status === 429) expect(r.headers["retry-after"]).toBe("1");
    }
    expect(statuses).toEqual([204, 204, 204, 429, 429]);
    await throttle("DELETE");
    expect((await readAlphabets()).json.data.keys).toEqual(["a0", "a1", "a2"]);
    expect((await throttle("GET")).json).toMatchObject({ rate: null, maxConcurrent: null, throttled: 0 });
  });

  test("bad settings are refused naming the field; reset turns the throttle off", async () => {
    for (const [body, message] of [
      [{ maxConcurrent: 0 }, "maxConcurrent must be a positive integer"],
      [{ rate: 1.5 }, "rate must be a positive integer (requests per second)"],
      [{ retryAfter: -1 }, "retryAfter must be a non-negative integer number of seconds"],
      [[], "body must be a JSON object"],
    ] as const) {
      const r = await throttle("PUT", body);
      expect([r.status, r.json.error]).toEqual([400, message]);
    }
    await throttle("PUT", { rate: 1 });
    await call("POST", `${emu.controlUrl}/reset`);
    expect((await Promise.all([readAlphabets(), readAlphabets()])).map((r) => r.status)).toEqual([404, 404]); // served, not throttled
  });
});
