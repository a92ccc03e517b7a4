import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { created, type Res } from "../support/calls";
import { control, requests, secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator();

const rawGet = (path: string) => secretsApi(emu, "GET", path);

describe("transform template", () => {
  it("creates, reads, updates in place and deletes", async () => {
    const { id, outs } = await created("secrets:TransformTemplate", { name: "ssn", pattern: "(\\d{3})-(\\d{2})", alphabet: "builtin/numeric" });
    expect(id).toBe("transform/template/ssn");
    expect(outs).toEqual({ name: "ssn", mount: "transform", type: "regex", pattern: "(\\d{3})-(\\d{2})", alphabet: "builtin/numeric", serverUrl: emu.secretsUrl });
    expect((await rawGet("/transform/template/ssn")).body.data.pattern).toBe("(\\d{3})-(\\d{2})");

    const read = (await call("secrets:TransformTemplate", "read", [id, outs])) as { id: string; props: Record<string, unknown> };
    expect(read).toEqual({ id, props: outs, inputs: expect.any(Object) });

    const news = { ...outs, pattern: "(\\d+)" };
    const updated = (await call("secrets:TransformTemplate", "update", [id, outs, news])) as { outs: Record<string, unknown> };
    expect(updated.outs.pattern).toBe("(\\d+)");
    expect((await rawGet("/transform/template/ssn")).body.data.pattern).toBe("(\\d+)");

    await call("secrets:TransformTemplate", "delete", [id, updated.outs]);
    expect((await rawGet("/transform/template/ssn")).status).toBe(404);
  });

  it("has no diff after create when optional fields are omitted", async () => {
    const { outs } = await created("secrets:TransformTemplate", { name: "plain", pattern: "(x)" });
    const { inputs } = (await call("secrets:TransformTemplate", "check", [outs, { name: "plain", pattern: "(x)" }])) as { inputs: Record<string, unknown> };
    expect(await call("secrets:TransformTemplate", "diff", ["id", outs, inputs])).toMatchObject({ changes: false });
  });

  it("honours another mount", async () => {
    await control(emu, "POST", "/mounts", { path: "transform-eu", type: "transform" });
    const { id } = await created("secrets:TransformTemplate", { name: "iban", mount: "transform-eu", pattern: "([A-Z]{2})" });
    expect(id).toBe("transform-eu/template/iban");
    expect((await rawGet("/transform-eu/template/iban")).status).toBe(200);
    expect((await rawGet("/transform/template/iban")).status).toBe(404);
  });

  it("refuses to overwrite an object it does not own unless adopt is set", async () => {
    await created("secrets:TransformTemplate", { name: "taken", pattern: "(a)" });
    const { inputs } = (await call("secrets:TransformTemplate", "check", [{}, { name: "taken", pattern: "(b)" }])) as { inputs: Record<string, unknown> };
    await expect(call("secrets:TransformTemplate", "create", [inputs])).rejects.toThrow(/already exists\. If a pulumi up that was stopped .*npx pulumi-svc-recover.*--cleared.*If you renamed this resource in your program, give it aliases: .*deleteBeforeReplace: false.*to manage the existing .* set adopt: true/);
    expect((await rawGet("/transform/template/taken")).body.data.pattern).toBe("(a)");
    const adopted = (await call("secrets:TransformTemplate", "create", [{ ...inputs, adopt: true }])) as Res;
    expect(adopted.outs).toMatchObject({ pattern: "(b)", adopt: true });
  });

  it("drops the object on refresh after an out-of-band delete, and delete of a gone object succeeds", async () => {
    const { id, outs } = await created("secrets:TransformTemplate", { name: "gone", pattern: "(a)" });
    await secretsApi(emu, "DELETE", "/transform/template/gone");
    expect(await call("secrets:TransformTemplate", "read", [id, outs])).toEqual({ id: "", props: {} });
    await expect(call("secrets:TransformTemplate", "delete", [id, outs])).resolves.toBeUndefined();
  });

  it("makes no request when check rejects the inputs", async () => {
    await control(emu, "DELETE", "/requests");
    const r = (await call("secrets:TransformTemplate", "check", [{}, { name: "bad", pattern: "\\d+" }])) as { failures: { property: string }[] };
    expect(r.failures.map((f) => f.property)).toEqual(["pattern"]);
    expect(await requests(emu)).toEqual([]);
  });

  it("retries an idempotent write on 503 and surfaces a 400 with the server's message", async () => {
    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/transform/template/flaky", status: 503, count: 1 });
    const { outs } = await created("secrets:TransformTemplate", { name: "flaky", pattern: "(a)" });
    expect(outs.pattern).toBe("(a)");
    const posts = (await requests(emu)).filter((r) => r.method === "POST" && r.path === "/v1/transform/template/flaky");
    expect(posts.map((r) => r.status)).toEqual([503, 204]);

    // The alphabet does not exist: the server refuses; the message names the method, path, status.
    const { inputs } = (await call("secrets:TransformTemplate", "check", [{}, { name: "x", pattern: "(a)", alphabet: "nope" }])) as { inputs: Record<string, unknown> };
    const err = await rejectionOf(call("secrets:TransformTemplate", "create", [inputs]));
    expect(err.code).toBe("invalid_input");
    expect(err.message).toMatch(/^POST \/transform\/template\/x: 400 Bad Request: .*alphabet/);
    expect(err.message).not.toContain(emu.tokens.secretsUser);
  });
});

describe("transform alphabet", () => {
  it("creates, updates, replaces on rename and deletes", async () => {
    const { id, outs } = await created("secrets:TransformAlphabet", { name: "hex", alphabet: "0123456789abcdef" });
    expect(id).toBe("transform/alphabet/hex");
    const { outs: after } = (await call("secrets:TransformAlphabet", "update", [id, outs, { ...outs, alphabet: "0123456789ABCDEF" }])) as Res;
    expect((await rawGet("/transform/alphabet/hex")).body.data.alphabet).toBe("0123456789ABCDEF");
    expect(await call("secrets:TransformAlphabet", "diff", [id, after, { ...after, name: "hex2" }])).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
    await call("secrets:TransformAlphabet", "delete", [id, after]);
    expect((await rawGet("/transform/alphabet/hex")).status).toBe(404);
  });

  it("rejects a bad token with a forbidden error and never prints the token", async () => {
    const saved = process.env.SVC_SECRETS_TOKEN;
    process.env.SVC_SECRETS_TOKEN = "not-a-token-123456";
    try {
      const err = await rejectionOf(call("secrets:TransformAlphabet", "create", [{ name: "x", mount: "transform", alphabet: "ab" }]));
      expect(err.code).toBe("forbidden");
      expect(err.message).toMatch(/403/);
      expect(err.message).not.toContain("not-a-token-123456");
    } finally {
      process.env.SVC_SECRETS_TOKEN = saved;
    }
  });

  it("fails clearly when configuration is missing", async () => {
    const saved = process.env.SVC_SECRETS_URL;
    delete process.env.SVC_SECRETS_URL;
    try {
      await expect(call("secrets:TransformAlphabet", "create", [{ name: "x", mount: "transform", alphabet: "ab" }]))
        .rejects.toThrow(/svc:secretsUrl.*SVC_SECRETS_URL/);
    } finally {
      process.env.SVC_SECRETS_URL = saved;
    }
  });
});
