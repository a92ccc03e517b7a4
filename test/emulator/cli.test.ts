import { afterEach, describe, expect, test } from "vitest";
import { main, parseArgs } from "../../src/emulator/cli";
import type { Emulator } from "../../src/emulator";
import { bearer } from "./helpers";
import { call } from "../support/http";

let running: Emulator | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

describe("cli main", () => {
  test("starts the emulator and prints export lines that work", async () => {
    const { io, out } = capture();
    running = await main(["--port", "0", "--host", "127.0.0.1"], io);
    expect(running).toBeDefined();
    const emu = running!;
    expect(out.slice(0, 4)).toEqual([
      `export SVC_RUN_URL=${emu.runUrl}`,
      `export SVC_RUN_TOKEN=${emu.tokens.runAdmin}`,
      `export SVC_SECRETS_URL=${emu.secretsUrl}`,
      `export SVC_SECRETS_TOKEN=${emu.tokens.secretsRoot}`,
    ]);
    expect(out[4]).toContain(emu.url);
    expect(emu.runUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
    const runUrl = out[0].split("=")[1];
    const token = out[1].split("=")[1];
    const res = await call("GET", `${runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, { headers: bearer(token) });
    expect(res.status).toBe(200);
  });

  test("--help prints usage and starts nothing", async () => {
    const { io, out } = capture();
    expect(await main(["--help"], io)).toBeUndefined();
    expect(out.join("\n")).toContain("--state FILE");
  });

  test.each([["--port"], ["--port", "70000"], ["--bogus"], ["--host", ""]])("rejects %j", (...argv) => {
    expect(() => parseArgs(argv)).toThrow();
  });

  test("--clusters N starts N secrets clusters and prints a URL and a token for each further one", async () => {
    const { io, out } = capture();
    running = await main(["--clusters", "2"], io);
    const emu = running!;
    expect(emu.clusters).toHaveLength(2);
    const second = emu.clusters[1];
    expect(out.slice(4, 6)).toEqual([`export SVC_SECRETS_URL_1=${second.secretsUrl}`, `export SVC_SECRETS_TOKEN_1=${second.secretsToken}`]);
    const res = await call("GET", `${second.secretsUrl}/sys/plugins/catalog`, { headers: { "x-svc-token": second.secretsToken } });
    expect(res.status).toBe(200);
    expect(() => parseArgs(["--clusters", "0"])).toThrow("--clusters must be 1-16");
    expect(parseArgs(["--clusters=3"])).toEqual({ clusters: 3 });
  });

  test("with no flags, runs move by themselves: a queued run is planned, applied once confirmed, and ends", async () => {
    const { io, out } = capture();
    running = await main([], io);
    const emu = running!;
    expect(out).toContain("# runs move one status step every 500 ms (--auto-advance-ms 0 stops them)");
    const headers = bearer(emu.tokens.runAdmin);
    const created = await call("POST", `${emu.runUrl}/runs`, {
      headers, body: { data: { type: "runs", attributes: { message: "paced" }, relationships: { workspace: { data: { type: "workspaces", id: emu.workspaceId } } } } },
    });
    expect(created.status).toBe(201);
    const id = (created.json as { data: { id: string } }).data.id;
    const seen: string[] = [];
    // Nothing but the emulator's own timer moves the run; the test only confirms it, as a user would.
    for (;;) {
      const run = (await call("GET", `${emu.runUrl}/runs/${id}`, { headers })).json as { data: { attributes: { status: string; actions: Record<string, boolean> } } };
      const { status, actions } = run.data.attributes;
      if (seen.at(-1) !== status) seen.push(status);
      if (["applied", "planned_and_finished", "errored", "discarded", "canceled", "force_canceled"].includes(status)) break;
      if (actions["is-confirmable"]) expect((await call("POST", `${emu.runUrl}/runs/${id}/actions/apply`, { headers })).status).toBe(202);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen.at(-1)).toBe("applied");
    expect(seen).toEqual(expect.arrayContaining(["planning", "applying"]));
  }, 60_000);

  test("--auto-advance-ms sets the pace, and 0 leaves runs to be stepped", async () => {
    expect(parseArgs(["--auto-advance-ms", "0"])).toEqual({ autoAdvanceMs: 0 });
    expect(parseArgs(["--auto-advance-ms=20"])).toEqual({ autoAdvanceMs: 20 });
    expect(() => parseArgs(["--auto-advance-ms", "fast"])).toThrow("--auto-advance-ms must be 0-3600000");
    const { io, out } = capture();
    running = await main(["--auto-advance-ms", "0"], io);
    expect(out).toContain("# runs move only when stepped: POST /_emulator/runs/<id>/advance");
  });

  test("--flag=value form is accepted", () => {
    expect(parseArgs(["--port=8080", "--state=/tmp/x.json"])).toEqual({ port: 8080, statePath: "/tmp/x.json" });
  });
});
