import { describe, expect, test } from "vitest";
import { secretsApi } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";

const { emu } = useEmulator();
const { root, user, url, post, get } = secretsApi(emu);

describe("secrets authentication", () => {
  test.each([
    ["missing", {}],
    ["unknown", { "x-svc-token": "nope" }],
    ["a run token as bearer", { authorization: "Bearer x" }],
  ])("%s token → 403 permission denied", async (_n, headers) => {
    const res = await call("GET", url("transform/template/t"), { headers: headers as Record<string, string> });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ errors: ["permission denied"] });
  });

  test("403 comes before mount lookup", async () => {
    expect((await call("GET", url("nowhere/x"))).status).toBe(403);
  });

  test("the non-sudo token may use transform", async () => {
    expect((await post("transform/alphabet/digits", { alphabet: "0123456789" }, user())).status).toBe(204);
    expect((await get("transform/alphabet/digits", user())).json.data).toEqual({ alphabet: "0123456789" });
  });
});

describe("mounts", () => {
  test("an unknown mount → 404 no handler for route", async () => {
    const res = await get("kv/data/x");
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ errors: ['no handler for route "kv/data/x"'] });
  });

  test("an unknown path inside a mount → 404 no handler", async () => {
    expect((await get("transform/nothing/x")).json.errors[0]).toContain("no handler for route");
  });

  test("an extra mount is independent from the default one", async () => {
    expect((await call("POST", `${emu.controlUrl}/mounts`, { body: { path: "transform-eu", type: "transform" } })).status).toBe(204);
    expect((await post("transform-eu/alphabet/eu", { alphabet: "ab" })).status).toBe(204);
    expect((await get("transform-eu/alphabet/eu")).json.data.alphabet).toBe("ab");
    expect((await get("transform/alphabet/eu")).status).toBe(404);
    const mounts = await call("GET", `${emu.controlUrl}/mounts`);
    expect(mounts.json.mounts).toEqual(expect.arrayContaining([{ path: "transform", type: "transform" }, { path: "transform-eu", type: "transform" }]));
  });

  test("nested mount paths route to the longest match", async () => {
    await call("POST", `${emu.controlUrl}/mounts`, { body: { path: "team/a/transform", type: "transform" } });
    expect((await post("team/a/transform/alphabet/x", { alphabet: "xyz" })).status).toBe(204);
    expect((await get("team/a/transform/alphabet/x")).json.data.alphabet).toBe("xyz");
  });

  test.each([
    [{ path: "transform", type: "transform" }, "in use"],
    [{ path: "x", type: "nosuchengine" }, "type"],
    [{ path: "bad path", type: "transform" }, "path"],
    [{ path: "sys", type: "transform" }, "reserved"],
  ])("rejected mount %j", async (body, message) => {
    const res = await call("POST", `${emu.controlUrl}/mounts`, { body });
    expect(res.status).toBe(400);
    expect(res.json.error).toContain(message);
  });

  test("reset removes extra mounts", async () => {
    await call("POST", `${emu.controlUrl}/mounts`, { body: { path: "transform-eu", type: "transform" } });
    await call("POST", `${emu.controlUrl}/reset`);
    expect((await get("transform-eu/alphabet/x")).status).toBe(404);
    expect((await get("transform-eu/alphabet/x")).json.errors[0]).toContain("no handler");
  });
});

describe("transform templates", () => {
  test("write, read, list, delete", async () => {
    const write = await post("transform/template/ssn", { type: "regex", pattern: "(\\d{3})-(\\d{2})-(\\d{4})", alphabet: "builtin/numeric" });
    expect(write.status).toBe(204);
    expect(write.text).toBe("");
    const read = await get("transform/template/ssn");
    expect(read.status).toBe(200);
    expect(read.headers["content-type"]).toBe("application/json");
    expect(read.json).toEqual({
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      lease_id: "",
      renewable: false,
      lease_duration: 0,
      data: { alphabet: "builtin/numeric", pattern: "(\\d{3})-(\\d{2})-(\\d{4})", type: "regex" },
      wrap_info: null,
      warnings: null,
      auth: null,
    });
    await post("transform/template/card", { type: "regex", pattern: "(\\d{4})" });
    expect((await get("transform/template/card")).json.data.alphabet).toBe("");
    const list = await call("LIST", url("transform/template"), { headers: root() });
    expect(list.status).toBe(200);
    expect(list.json.data).toEqual({ keys: ["card", "ssn"] });
    expect((await call("DELETE", url("transform/template/ssn"), { headers: root() })).status).toBe(204);
    expect((await get("transform/template/ssn")).status).toBe(404);
    expect((await get("transform/template/ssn")).json).toEqual({ errors: [] });
    expect((await call("DELETE", url("transform/template/ssn"), { headers: root() })).status).toBe(204);
  });

  test("a second write replaces the template", async () => {
    await post("transform/template/t", { type: "regex", pattern: "(a)", alphabet: "builtin/alphalower" });
    await post("transform/template/t", { type: "regex", pattern: "(b)" });
    expect((await get("transform/template/t")).json.data).toEqual({ alphabet: "", pattern: "(b)", type: "regex" });
  });

  test("an existing alphabet on the same mount can be named", async () => {
    await post("transform/alphabet/hex", { alphabet: "0123456789abcdef" });
    expect((await post("transform/template/h", { type: "regex", pattern: "([0-9a-f]+)", alphabet: "hex" })).status).toBe(204);
  });

  test.each([
    [{ pattern: "(a)" }, "type"],
    [{ type: "fpe", pattern: "(a)" }, "type"],
    [{ type: "regex" }, "pattern"],
    [{ type: "regex", pattern: "" }, "pattern"],
    [{ type: "regex", pattern: "(unclosed" }, "pattern"],
    [{ type: "regex", pattern: "\\d+" }, "capture group"],
    [{ type: "regex", pattern: "(?:\\d+)" }, "capture group"],
    [{ type: "regex", pattern: "(a)", alphabet: "missing" }, "alphabet"],
    [{ type: "regex", pattern: "(a)", alphabet: 7 }, "alphabet"],
  ])("invalid %j → 400 naming %s", async (body, field) => {
    const res = await post("transform/template/bad", body);
    expect(res.status).toBe(400);
    expect(res.json.errors).toHaveLength(1);
    expect(res.json.errors[0]).toContain(field);
    expect((await get("transform/template/bad")).status).toBe(404);
  });

  test("an alphabet from another mount does not count", async () => {
    await call("POST", `${emu.controlUrl}/mounts`, { body: { path: "other", type: "transform" } });
    await post("other/alphabet/ab", { alphabet: "ab" });
    expect((await post("transform/template/t", { type: "regex", pattern: "(a)", alphabet: "ab" })).status).toBe(400);
  });

  test("LIST with nothing stored → 404 with no messages", async () => {
    const res = await call("LIST", url("transform/template"), { headers: root() });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ errors: [] });
  });

  test("names containing a slash are not routes", async () => {
    const res = await post("transform/template/a/b", { type: "regex", pattern: "(a)" });
    expect(res.status).toBe(404);
    expect(res.json.errors[0]).toContain("no handler for route");
    expect((await post("transform/template/a%2Fb", { type: "regex", pattern: "(a)" })).status).toBe(404);
  });

  test("wrong method → 405 unsupported operation; GET of the collection without list too", async () => {
    expect((await call("PATCH", url("transform/template/t"), { headers: root(), body: {} })).json).toEqual({ errors: ["unsupported operation"] });
    expect((await call("PATCH", url("transform/template/t"), { headers: root(), body: {} })).status).toBe(405);
    expect((await get("transform/template")).status).toBe(405);
  });

  test("PUT writes like POST", async () => {
    expect((await call("PUT", url("transform/template/p"), { headers: root(), body: { type: "regex", pattern: "(p)" } })).status).toBe(204);
    expect((await get("transform/template/p")).status).toBe(200);
  });

  test("malformed JSON → 400; a non-object body → 400", async () => {
    const bad = await call("POST", url("transform/template/t"), { headers: root(), raw: "{oops" });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0]).toContain("JSON");
    expect((await call("POST", url("transform/template/t"), { headers: root(), raw: "[1]" })).status).toBe(400);
  });
});

describe("transform alphabets", () => {
  test("write, read, list, delete", async () => {
    expect((await post("transform/alphabet/b", { alphabet: "01" })).status).toBe(204);
    expect((await post("transform/alphabet/a", { alphabet: "abcdef" })).status).toBe(204);
    expect((await get("transform/alphabet/a")).json.data).toEqual({ alphabet: "abcdef" });
    expect((await get(`transform/alphabet?list=true`)).json.data.keys).toEqual(["a", "b"]);
    expect((await call("DELETE", url("transform/alphabet/a"), { headers: root() })).status).toBe(204);
    expect((await get(`transform/alphabet?list=true`)).json.data.keys).toEqual(["b"]);
  });

  test.each([
    [{}, "alphabet"],
    [{ alphabet: 12 }, "alphabet"],
    [{ alphabet: "a" }, "2 characters"],
    [{ alphabet: "" }, "2 characters"],
    [{ alphabet: "abca" }, "repeat"],
  ])("invalid %j → 400 naming %s", async (body, message) => {
    const res = await post("transform/alphabet/x", body);
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain(message);
    expect((await get("transform/alphabet/x")).status).toBe(404);
  });

  test("characters are counted as code points", async () => {
    expect((await post("transform/alphabet/emoji", { alphabet: "😀😁" })).status).toBe(204);
    expect((await post("transform/alphabet/emoji1", { alphabet: "😀" })).status).toBe(400);
  });

  test("builtin alphabets are readable but cannot be written or deleted", async () => {
    expect((await get("transform/alphabet/builtin/numeric")).json.data).toEqual({ alphabet: "0123456789" });
    const write = await post("transform/alphabet/builtin/numeric", { alphabet: "01" });
    expect(write.status).toBe(400);
    expect(write.json.errors[0]).toContain("builtin");
    expect((await call("DELETE", url("transform/alphabet/builtin/numeric"), { headers: root() })).status).toBe(400);
    expect((await get("transform/alphabet/builtin/numeric")).json.data.alphabet).toBe("0123456789");
    expect((await get("transform/alphabet/builtin/nope")).status).toBe(404);
  });
});
