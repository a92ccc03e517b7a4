import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, test, vi } from "vitest";
import { readStateFile, startEmulator } from "../../src/emulator";
import { STORED } from "../../src/emulator/areas";
import { kindTable } from "../../src/emulator/runs/state";
import { bearer, svcToken, useStateFile } from "./helpers";
import { call } from "../support/http";

const state = useStateFile("emu-state-");

/**
 * The ids the services give out that a token, registered as a secret, would mask: the provider masks
 * every six-character run of a secret, so a token must share none with ids such as run-<16
 * characters>, even one that starts with the token's first random digits (its last 32 hex digits,
 * whatever comes before them). A fresh copy of the redaction each time: what is registered here
 * stays out of the rest of the file.
 */
async function idsMaskedBy(tokens: string[]): Promise<string[]> {
  vi.resetModules();
  const { redact, registerSecret } = await import("../../src/http/redact");
  const masked: string[] = [];
  for (const token of tokens) {
    expect(token).toMatch(/[0-9a-f]{32}$/);
    registerSecret(token);
    for (const prefix of ["run", "ws", "nc", "ent", "fault"]) {
      const id = `${prefix}-${token.slice(-32, -30)}gLRyZa79YG1Yxh`;
      const message = `run ${id} is errored; POST /runs/${id}/actions/apply`;
      if (redact(message) !== message) masked.push(id);
    }
    expect(redact(`Authorization: Bearer ${token}`)).not.toContain(token);
  }
  return masked;
}

describe("a run-service kind's own table (kindTable)", () => {
  test("is made on its first write, free of a prototype, and kept through the state document; a read before leaves the data as it was", () => {
    const data = STORED.initial(new Date().toISOString());
    expect(kindTable(data.run, "widgets")).toEqual({});
    expect(Object.keys(data.run)).not.toContain("widgets");
    const widgets = kindTable<{ size: number }>(data.run, "widgets", true);
    widgets["w-1"] = { size: 1 };
    expect(Object.getPrototypeOf(widgets)).toBe(null);
    const read = STORED.read("a test document", JSON.parse(JSON.stringify({ version: 1, tokens: {}, data })));
    expect(STORED.problem(read.data)).toBeUndefined();
    expect({ ...kindTable(read.data.run, "widgets") }).toEqual({ "w-1": { size: 1 } });
    // A kind the initial state names reads its table from the start.
    expect(kindTable(data.run, "notificationConfigurations")).toBe(data.run.notificationConfigurations);
  });
});

describe("persistence with statePath", () => {
  test("objects, tokens and mounts survive a restart", async () => {
    const first = await state.start();
    const nc = await call("POST", `${first.runUrl}/workspaces/${first.workspaceId}/notification-configurations`, {
      headers: bearer(first.tokens.runAdmin),
      body: { data: { type: "notification-configurations", attributes: { name: "kept", "destination-type": "generic", url: "https://h.example.com/", token: "tok" } } },
    });
    expect(nc.status).toBe(201);
    await call("POST", `${first.controlUrl}/mounts`, { body: { path: "transform-eu", type: "transform" } });
    await call("POST", `${first.secretsUrl}/transform-eu/alphabet/eu`, { headers: svcToken(first.tokens.secretsRoot), body: { alphabet: "xyz" } });
    await first.close();

    const second = await state.start();
    expect(second.tokens).toEqual(first.tokens);
    const shown = await call("GET", `${second.runUrl}/notification-configurations/${nc.json.data.id}`, { headers: bearer(second.tokens.runAdmin) });
    expect(shown.status).toBe(200);
    expect(shown.json.data.attributes.name).toBe("kept");
    const alphabet = await call("GET", `${second.secretsUrl}/transform-eu/alphabet/eu`, { headers: svcToken(second.tokens.secretsRoot) });
    expect(alphabet.json.data.alphabet).toBe("xyz");
  });

  test("the file is replaced atomically and only the state file remains", async () => {
    const emu = await state.start();
    for (let i = 0; i < 5; i++) {
      await call("POST", `${emu.secretsUrl}/transform/alphabet/a${i}`, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "ab" } });
    }
    await emu.close();
    // The state file and its key; no temporary file is left behind.
    expect(readdirSync(dirname(state.path)).sort()).toEqual(["state.json", "state.json.key"]);
    const saved = readStateFile(state.path) as { data: { secrets: { mounts: { transform: { objects: { alphabet: object } } } } } };
    expect(Object.keys(saved.data.secrets.mounts.transform.objects.alphabet)).toHaveLength(5);
  });

  test("a failed request writes nothing new; reads never write", async () => {
    const emu = await state.start();
    const before = readFileSync(state.path, "utf8");
    await call("POST", `${emu.secretsUrl}/transform/alphabet/x`, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "a" } });
    await call("GET", `${emu.secretsUrl}/transform/alphabet/x`, { headers: svcToken(emu.tokens.secretsRoot) });
    expect(readFileSync(state.path, "utf8")).toBe(before);
  });

  test("tokens given in options override persisted ones", async () => {
    const first = await state.start();
    await first.close();
    const second = await state.start({ tokens: { runAdmin: "fixed-admin-token" } });
    expect(second.tokens.runAdmin).toBe("fixed-admin-token");
    expect(second.tokens.secretsRoot).toBe(first.tokens.secretsRoot);
    expect((await call("GET", `${second.runUrl}/workspaces/${second.workspaceId}/notification-configurations`, { headers: bearer("fixed-admin-token") })).status).toBe(200);
  });

  test("reset is persisted too", async () => {
    const first = await state.start();
    await call("POST", `${first.secretsUrl}/transform/alphabet/gone`, { headers: svcToken(first.tokens.secretsRoot), body: { alphabet: "ab" } });
    await call("POST", `${first.controlUrl}/reset`);
    await first.close();
    const second = await state.start();
    expect((await call("GET", `${second.secretsUrl}/transform/alphabet/gone`, { headers: svcToken(second.tokens.secretsRoot) })).status).toBe(404);
  });

  test("a file that is not an emulator state file is refused", async () => {
    writeFileSync(state.path, JSON.stringify({ hello: "world" }));
    await expect(startEmulator({ statePath: state.path })).rejects.toThrow(/state file/);
  });

  test("without statePath random tokens differ per start", async () => {
    const a = await startEmulator();
    const b = await startEmulator();
    state.running.push(a, b);
    expect(a.tokens.runAdmin).toMatch(/^emurun[0-9a-f]{32}$/);
    expect(a.tokens.secretsRoot).toMatch(/^emusec[0-9a-f]{32}$/);
    expect(a.tokens.runAdmin).not.toBe(b.tokens.runAdmin);
    expect(new Set(Object.values(a.tokens)).size).toBe(6);
  });

  test("a token, registered as a secret, masks no part of an id the services give out", async () => {
    const emu = await startEmulator();
    state.running.push(emu);
    expect(await idsMaskedBy(Object.values(emu.tokens))).toEqual([]);
  });

  test("planted: the old format emu-run-<hex> is caught, its run `run-` and two random digits masking run ids", async () => {
    const old = `emu-run-${"35".padEnd(32, "0a1b")}`;
    expect(await idsMaskedBy([old])).toEqual([expect.stringMatching(/^run-35/)]);
  });
});
