import { describe, expect, test } from "vitest";
import { secretsApi, svcToken, useStateFile } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";

const { emu } = useEmulator();
const { root, user, url, put, get, del } = secretsApi(emu, "sys/plugins/catalog");

const SHA = "a".repeat(32) + "0123456789ABCDEF".repeat(2);
const PLUGIN = { sha256: SHA, command: "my-secrets-plugin", args: ["--tls-skip-verify"], env: ["LOG_LEVEL=debug"] };

describe("plugin catalog", () => {
  // Only the restart test starts emulators on it; the rest of this block uses the shared one.
  const state = useStateFile("emu-plugins-");

  test("the catalog groups builtin plugins by type, sorted; any token may read it", async () => {
    const res = await get("", user());
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      auth: ["approle", "ldap", "userpass"],
      database: ["mysql-database-plugin", "postgresql-database-plugin"],
      secret: ["keymgmt", "kv", "transform"],
    });
  });

  test("register, read, list and remove a plugin", async () => {
    const write = await put("/secret/my-secrets", PLUGIN);
    expect(write.status).toBe(204);
    expect(write.text).toBe("");
    const read = await get("/secret/my-secrets");
    expect(read.status).toBe(200);
    // env is accepted but not part of the read fields; the checksum is reported lower-case.
    expect(read.json.data).toEqual({ name: "my-secrets", args: ["--tls-skip-verify"], builtin: false, command: "my-secrets-plugin", sha256: SHA.toLowerCase() });
    expect((await get("")).json.data.secret).toEqual(["keymgmt", "kv", "my-secrets", "transform"]);
    const listed = await call("LIST", url("/secret"), { headers: user() });
    expect(listed.json.data.keys).toEqual(["keymgmt", "kv", "my-secrets", "transform"]);
    expect((await get("/auth?list=true")).json.data.keys).toEqual(["approle", "ldap", "userpass"]);
    expect((await del("/secret/my-secrets")).status).toBe(204);
    const gone = await get("/secret/my-secrets");
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ errors: [] });
    expect((await del("/secret/my-secrets")).status).toBe(204);
  });

  test("POST registers like PUT; a second write replaces; args and env default to empty", async () => {
    expect((await call("POST", url("/database/db"), { headers: root(), body: PLUGIN })).status).toBe(204);
    expect((await put("/database/db", { sha256: "b".repeat(64), command: "db-v2" })).status).toBe(204);
    expect((await get("/database/db")).json.data).toEqual({ name: "db", args: [], builtin: false, command: "db-v2", sha256: "b".repeat(64) });
  });

  test("the same name under two types is two plugins", async () => {
    await put("/auth/same", PLUGIN);
    expect((await get("/secret/same")).status).toBe(404);
  });

  test("register, read and remove need sudo; the catalog and lists do not", async () => {
    await put("/auth/mine", PLUGIN);
    for (const res of [await put("/auth/other", PLUGIN, user()), await get("/auth/mine", user()), await del("/auth/mine", user())]) {
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ errors: ["permission denied"] });
    }
    expect((await get("/auth/other")).status).toBe(404);
    expect((await get("/auth/mine")).status).toBe(200);
    expect((await call("LIST", url("/auth"), { headers: user() })).status).toBe(200);
  });

  test.each([
    [{ command: "x" }, "missing sha256"],
    [{ sha256: "a".repeat(63), command: "x" }, "sha256 must be 64 hexadecimal"],
    [{ sha256: "g".repeat(64), command: "x" }, "sha256 must be 64 hexadecimal"],
    [{ sha256: SHA }, "missing command"],
    [{ sha256: SHA, command: "/usr/bin/x" }, "command must be relative"],
    [{ sha256: SHA, command: "../x" }, "command must be relative"],
    [{ sha256: SHA, command: "a/../../b" }, "command must be relative"],
    [{ sha256: SHA, command: "x", args: "a" }, "args"],
    [{ sha256: SHA, command: "x", args: [1] }, "args[0]"],
    [{ sha256: SHA, command: "x", env: ["NOVALUE"] }, "env[0]"],
    [{ sha256: SHA, command: "x", env: ["A=1", "=1"] }, "env[1]"],
  ])("invalid %j → 400 naming %s", async (body, message) => {
    const res = await put("/secret/bad", body);
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([expect.stringContaining(message)]);
    expect((await get("/secret/bad")).status).toBe(404);
  });

  test("a command in a subdirectory of the plugin directory is fine", async () => {
    expect((await put("/secret/sub", { sha256: SHA, command: "vendor/plugin" })).status).toBe(204);
  });

  test("an unknown type is 400 on every route", async () => {
    for (const res of [await put("/widget/x", PLUGIN), await get("/widget/x"), await del("/widget/x"), await call("LIST", url("/widget"), { headers: root() })]) {
      expect(res.status).toBe(400);
      expect(res.json.errors[0]).toContain('unknown plugin type "widget"');
    }
  });

  test("builtins read as builtin and cannot be removed", async () => {
    expect((await get("/secret/kv")).json.data).toEqual({ name: "kv", args: [], builtin: true, command: "", sha256: "" });
    const res = await del("/secret/kv");
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain("builtin");
    expect((await get("/secret/kv")).status).toBe(200);
  });

  test("registering a builtin's name shadows it until removed", async () => {
    expect((await put("/auth/userpass", PLUGIN)).status).toBe(204);
    expect((await get("/auth/userpass")).json.data).toMatchObject({ builtin: false, command: "my-secrets-plugin" });
    expect((await get("")).json.data.auth).toEqual(["approle", "ldap", "userpass"]);
    expect((await del("/auth/userpass")).status).toBe(204);
    expect((await get("/auth/userpass")).json.data.builtin).toBe(true);
  });

  test("reset drops registered plugins", async () => {
    await put("/secret/gone", PLUGIN);
    await call("POST", `${emu.controlUrl}/reset`);
    expect((await get("/secret/gone")).status).toBe(404);
  });

  test("registered plugins survive a restart", async () => {
    const first = await state.start();
    const headers = svcToken(first.tokens.secretsRoot);
    await call("PUT", `${first.secretsUrl}/sys/plugins/catalog/secret/kept`, { headers, body: PLUGIN });
    await first.close();
    const second = await state.start();
    const read = await call("GET", `${second.secretsUrl}/sys/plugins/catalog/secret/kept`, { headers: svcToken(second.tokens.secretsRoot) });
    expect(read.json.data.command).toBe("my-secrets-plugin");
  });

  test("other sys paths have no handler", async () => {
    const res = await call("GET", `${emu.secretsUrl}/sys/mounts`, { headers: root() });
    expect(res.status).toBe(404);
    expect(res.json.errors[0]).toContain("no handler for route");
  });
});
