import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { bearer, call, svcToken } from "./helpers";

let dir: string;
let statePath: string;
const running: Emulator[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "emu-state-"));
  statePath = join(dir, "state.json");
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(options = {}): Promise<Emulator> {
  const emu = await startEmulator({ statePath, ...options });
  running.push(emu);
  return emu;
}

describe("persistence with statePath", () => {
  test("objects, tokens and mounts survive a restart", async () => {
    const first = await start();
    const nc = await call("POST", `${first.runUrl}/workspaces/${first.workspaceId}/notification-configurations`, {
      headers: bearer(first.tokens.runAdmin),
      body: { data: { type: "notification-configurations", attributes: { name: "kept", "destination-type": "generic", url: "https://h.example.com/", token: "tok" } } },
    });
    expect(nc.status).toBe(201);
    await call("POST", `${first.controlUrl}/mounts`, { body: { path: "transform-eu", type: "transform" } });
    await call("POST", `${first.secretsUrl}/transform-eu/alphabet/eu`, { headers: svcToken(first.tokens.secretsRoot), body: { alphabet: "xyz" } });
    await first.close();
    running.length = 0;

    const second = await start();
    expect(second.tokens).toEqual(first.tokens);
    const shown = await call("GET", `${second.runUrl}/notification-configurations/${nc.json.data.id}`, { headers: bearer(second.tokens.runAdmin) });
    expect(shown.status).toBe(200);
    expect(shown.json.data.attributes.name).toBe("kept");
    const alphabet = await call("GET", `${second.secretsUrl}/transform-eu/alphabet/eu`, { headers: svcToken(second.tokens.secretsRoot) });
    expect(alphabet.json.data.alphabet).toBe("xyz");
  });

  test("the file is replaced atomically and only the state file remains", async () => {
    const emu = await start();
    for (let i = 0; i < 5; i++) {
      await call("POST", `${emu.secretsUrl}/transform/alphabet/a${i}`, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "ab" } });
    }
    expect(readdirSync(dir)).toEqual(["state.json"]);
    const saved = JSON.parse(readFileSync(statePath, "utf8"));
    expect(saved.version).toBe(1);
    expect(Object.keys(saved.data.secrets.mounts.transform.objects.alphabet)).toHaveLength(5);
  });

  test("a failed request writes nothing new; reads never write", async () => {
    const emu = await start();
    const before = readFileSync(statePath, "utf8");
    await call("POST", `${emu.secretsUrl}/transform/alphabet/x`, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "a" } });
    await call("GET", `${emu.secretsUrl}/transform/alphabet/x`, { headers: svcToken(emu.tokens.secretsRoot) });
    expect(readFileSync(statePath, "utf8")).toBe(before);
  });

  test("tokens given in options override persisted ones", async () => {
    const first = await start();
    await first.close();
    running.length = 0;
    const second = await start({ tokens: { runAdmin: "fixed-admin-token" } });
    expect(second.tokens.runAdmin).toBe("fixed-admin-token");
    expect(second.tokens.secretsRoot).toBe(first.tokens.secretsRoot);
    expect((await call("GET", `${second.runUrl}/workspaces/${second.workspaceId}/notification-configurations`, { headers: bearer("fixed-admin-token") })).status).toBe(200);
  });

  test("reset is persisted too", async () => {
    const first = await start();
    await call("POST", `${first.secretsUrl}/transform/alphabet/gone`, { headers: svcToken(first.tokens.secretsRoot), body: { alphabet: "ab" } });
    await call("POST", `${first.controlUrl}/reset`);
    await first.close();
    running.length = 0;
    const second = await start();
    expect((await call("GET", `${second.secretsUrl}/transform/alphabet/gone`, { headers: svcToken(second.tokens.secretsRoot) })).status).toBe(404);
  });

  test("a file that is not an emulator state file is refused", async () => {
    writeFileSync(statePath, JSON.stringify({ hello: "world" }));
    await expect(startEmulator({ statePath })).rejects.toThrow(/state file/);
  });

  test("without statePath random tokens differ per start", async () => {
    const a = await startEmulator();
    const b = await startEmulator();
    running.push(a, b);
    expect(a.tokens.runAdmin).toMatch(/^emu-run-[0-9a-f]{32}$/);
    expect(a.tokens.secretsRoot).toMatch(/^emu-sec-[0-9a-f]{32}$/);
    expect(a.tokens.runAdmin).not.toBe(b.tokens.runAdmin);
    expect(new Set(Object.values(a.tokens)).size).toBe(6);
  });
});
