import { describe, expect, test } from "vitest";
import { startEmulator } from "../../src/emulator";
import { bearer, secretsApi, svcToken, useStateFile } from "./helpers";
import { call } from "../support/http";
import { controlResponse, useEmulator } from "../support/emulator";

/** Names an object literal inherits; each must behave like any other name. */
const NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"];

const { emu } = useEmulator();
const api = secretsApi(emu);

describe.each(NAMES)("the name %s", (name) => {
  test("transform template and alphabet: absent is 404, then create, read, list, delete", async () => {
    expect((await api.get(`transform/template/${name}`)).status).toBe(404);
    expect((await api.get(`transform/alphabet/${name}`)).status).toBe(404);
    expect((await api.post(`transform/alphabet/${name}`, { alphabet: "xyz" })).status).toBe(204);
    expect((await api.get(`transform/alphabet/${name}`)).json.data).toEqual({ alphabet: "xyz" });
    expect((await api.list("transform/alphabet")).json.data.keys).toEqual([name]);
    expect((await api.post(`transform/template/${name}`, { type: "regex", pattern: "(\\d)", alphabet: name })).status).toBe(204);
    expect((await api.get(`transform/template/${name}`)).json.data.alphabet).toBe(name);
    expect((await api.del(`transform/template/${name}`)).status).toBe(204);
    expect((await api.del(`transform/alphabet/${name}`)).status).toBe(204);
    expect((await api.get(`transform/alphabet/${name}`)).status).toBe(404);
    expect((await api.list("transform/alphabet")).status).toBe(404);
  });

  test("keymgmt key and KMS provider: absent is 404, never 500; then a working object", async () => {
    expect((await api.get(`keymgmt/key/${name}`)).status).toBe(404);
    expect((await api.get(`keymgmt/kms/${name}`)).status).toBe(404);
    const distribute = await api.post(`keymgmt/kms/${name}/key/k1`, { purpose: ["encrypt"] });
    expect(distribute.status).toBeGreaterThanOrEqual(400);
    expect(distribute.status).toBeLessThan(500);
    expect((await api.post(`keymgmt/key/${name}`, { type: "aes256-gcm96" })).status).toBe(204);
    expect((await api.get(`keymgmt/key/${name}`)).json.data.name).toBe(name);
    expect((await api.list("keymgmt/key")).json.data.keys).toEqual([name]);
    const kms = await api.post(`keymgmt/kms/${name}`, { provider: "awskms", key_collection: "c", credentials: { access_key: "a", secret_key: "s" } });
    expect(kms.status).toBe(204);
    expect((await api.post(`keymgmt/kms/${name}/key/${name}`, { purpose: ["encrypt", "decrypt"] })).status).toBe(204);
    expect((await api.get(`keymgmt/kms/${name}/key/${name}`)).status).toBe(200);
  });

  test("a KMS provider's name as a credential or provider type is not an inherited member", async () => {
    const res = await api.post("keymgmt/kms/p", { provider: name, key_collection: "c" });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain("provider must be one of");
  });

  test("run service: a workspace of that id is 404 until seeded, then holds notification configurations", async () => {
    const headers = bearer(emu.tokens.runAdmin);
    const ncs = `${emu.runUrl}/workspaces/${encodeURIComponent(name)}/notification-configurations`;
    const body = { data: { type: "notification-configurations", attributes: { name: "n", "destination-type": "generic", url: "https://h.example.com/" } } };
    expect((await call("POST", ncs, { headers, body })).status).toBe(404);
    expect((await call("GET", `${emu.runUrl}/notification-configurations/${encodeURIComponent(name)}`, { headers })).status).toBe(404);
    expect((await controlResponse(emu, "POST", "/seed", { workspaces: [{ id: name, name: "proto" }] })).status).toBe(200);
    expect((await call("POST", ncs, { headers, body })).status).toBe(201);
    expect((await call("GET", ncs, { headers })).json.data).toHaveLength(1);
  });
});

describe("prototype names survive a restart", () => {
  const state = useStateFile("emu-proto-");

  test("objects named __proto__, constructor and toString are persisted, reloaded, listed and deleted", async () => {
    const first = await state.start();
    const a = secretsApi(first);
    for (const name of ["__proto__", "constructor", "toString"]) {
      expect((await a.post(`transform/alphabet/${name}`, { alphabet: name === "__proto__" ? "9ab" : "abc" })).status).toBe(204);
      expect((await a.post(`keymgmt/kms/${name}`, { provider: "awskms", key_collection: "c", credentials: { [name]: "x", access_key: "a" } })).status).toBe(400);
    }
    await first.close();

    const second = await state.start();
    const b = secretsApi(second);
    expect((await b.list("transform/alphabet")).json.data.keys.sort()).toEqual(["__proto__", "constructor", "toString"]);
    expect((await b.get("transform/alphabet/__proto__")).json.data).toEqual({ alphabet: "9ab" });
    expect((await b.del("transform/alphabet/__proto__")).status).toBe(204);
    expect((await b.get("transform/alphabet/__proto__")).status).toBe(404);
    expect((await b.get("transform/alphabet/constructor")).status).toBe(200);
    // Names still absent are absent after the reload too.
    expect((await b.get("transform/template/hasOwnProperty")).status).toBe(404);
    await second.close();

    const third = await startEmulator({ statePath: state.path });
    state.running.push(third);
    expect((await call("GET", `${third.secretsUrl}/transform/alphabet/__proto__`, { headers: svcToken(third.tokens.secretsRoot) })).status).toBe(404);
  });
});
