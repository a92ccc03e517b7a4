// A deploy cancelled mid-flight under the real Pulumi CLI, as CI cancels a job (docs/behaviour.md,
// "When a deploy is cancelled"): the CLI and its plugins are killed while four creates have acted on
// the servers and their responses are held back. The user then does what the messages say: pulumi up
// (the lock names pulumi cancel), pulumi cancel, pulumi up (each create names pulumi-svc-recover),
// pulumi-svc-recover, pulumi up. Every object then exists once, is the stack's, and the next preview
// has no change; a run queued once was applied once.
import * as path from "node:path";
import { expect, it } from "vitest";
import { control, runApi, secretsApi } from "../support/emulator";
import { root } from "../support/dist";
import { CliStack, cliScenarios, describeCli, nameOf, stopTree } from "./cli";

const { emu, stacks } = cliScenarios();

const CREATES = [
  ["POST", "/api/v2/workspaces/ws-example00000001/notification-configurations"],
  ["POST", "/v1/identity/mfa/method/dualfactor"],
  ["POST", "/api/v2/runs"],
  ["POST", "/v1/transform/alphabet/digits"],
];

/** A stack of the program and the emulator's objects counted. */
async function cancelledStack(e: ReturnType<typeof emu>): Promise<{ s: CliStack; count: () => Promise<{ hooks: number; methods: number; runs: number }> }> {
  await control(e, "POST", "/reset");
  const s = await CliStack.create({
    project: "cancelled", program: path.join(__dirname, "programs/cancelled/index.js"),
    config: { "svc:runUrl": e.runUrl, "svc:secretsUrl": e.secretsUrl, "cancelled:workspaceId": e.workspaceId },
    secretConfig: { "svc:runToken": e.tokens.runAdmin, "svc:secretsToken": e.tokens.secretsRoot, "cancelled:duoSecret": "duo-secret-key-77", "cancelled:duoKey": "DUOINTEGRATION77" },
  });
  stacks.push(s);
  const count = async () => ({
    hooks: (await runApi(e, "GET", `/workspaces/${e.workspaceId}/notification-configurations`)).body.data.length,
    methods: ((await secretsApi(e, "LIST", "/identity/mfa/method/dualfactor")).body?.data?.keys ?? []).length,
    runs: (await runApi(e, "GET", `/workspaces/${e.workspaceId}/runs`)).body.data.length,
  });
  return { s, count };
}

/** `pulumi up` killed (SIGKILL, the CLI and its plugins) while the four creates have acted and their answers are held. */
async function killedUp(e: ReturnType<typeof emu>, s: CliStack): Promise<void> {
  // The run moves on by itself, as on a server: the Run waits for it to complete, applying it on the way.
  await control(e, "PUT", "/clock", { autoAdvanceMs: 100 });
  for (const [method, p] of CREATES) await control(e, "POST", "/faults", { method, path: p, hold: true, when: "after" });
  const up = s.start(["up", "--yes", "--skip-preview"]);
  try {
    const held = await control<{ held: unknown[]; timedOut?: boolean }>(e, "GET", `/faults/held?wait=${CREATES.length}&timeoutMs=60000`);
    expect(held.timedOut, JSON.stringify(held)).toBeFalsy();
  } finally {
    // Whatever happened, nothing of this up may live on (its provider host would poll the run).
    stopTree(up.pid, "SIGKILL");
  }
  expect((await up.done).code).not.toBe(0);
  await control(e, "DELETE", "/faults");
}

/** Every create the refused up started names `command`. */
function namesCommand(refused: Awaited<ReturnType<CliStack["up"]>>, command: string): void {
  expect(refused.code).not.toBe(0);
  // The engine stops starting steps at the first failure: every create it started names the command.
  const said = (refused.diagnostics ?? []).filter((d) => d.severity === "error" && d.urn && !d.urn.includes("pulumi:pulumi:Stack"));
  expect(said.length, refused.text).toBeGreaterThan(0);
  for (const d of said) expect(d.message, nameOf(d.urn!)).toContain(command);
}

/** After recovery: one up completes the four, the preview is clean, each object once, the run applied once; destroyed. */
async function finishes(e: ReturnType<typeof emu>, s: CliStack, count: () => Promise<unknown>): Promise<void> {
  const finished = await s.up();
  expect(finished.code, finished.text).toBe(0);
  expect(Object.values(finished.outcomes ?? {}).sort()).toEqual(["update", "update", "update", "update"]);
  expect((await s.run(["preview", "--expect-no-changes"])).code).toBe(0);
  expect(await count()).toEqual({ hooks: 1, methods: 1, runs: 1 });
  const runs = (await runApi(e, "GET", `/workspaces/${e.workspaceId}/runs`)).body.data as { attributes: { status: string } }[];
  expect(runs.map((r) => r.attributes.status)).toEqual(["applied"]);
  const held = (await s.state()).resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/")).map((r) => nameOf(r.urn)).sort();
  expect(held).toEqual(["deploy", "digits", "duo", "hook"]);
  expect((await s.destroy()).code).toBe(0);
  expect(await count()).toEqual({ hooks: 0, methods: 0, runs: 1 });
  await control(e, "PUT", "/clock", { autoAdvanceMs: 0 });
}

const recover = (s: CliStack, ...args: string[]) => s.command(process.execPath, [path.join(root, "dist/src/recover/cli.js"), "--stack", "dev", ...args]);

describeCli("a deploy cancelled mid-flight, under the real Pulumi CLI", () => {
  it("SIGKILL while four creates are in flight, then pulumi refresh: nothing duplicated, nothing stuck; the messages lead to pulumi-svc-recover and the next up finishes", async () => {
    const e = emu();
    const { s, count } = await cancelledStack(e);
    await killedUp(e, s);
    expect(await count()).toEqual({ hooks: 1, methods: 1, runs: 1 });

    const locked = await s.run(["up", "--yes", "--skip-preview"]);
    expect(locked.code).not.toBe(0);
    expect(locked.stdout + locked.stderr).toContain("pulumi cancel");
    expect((await s.run(["cancel", "--yes"])).code).toBe(0);
    // The first way Pulumi's message offers: a refresh, which keeps the pending creates when not interactive.
    expect((await s.refresh()).code).toBe(0);
    namesCommand(await s.up(), "npx pulumi-svc-recover");
    expect(await count()).toEqual({ hooks: 1, methods: 1, runs: 1 });

    const recovered = await recover(s);
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(recovered.stdout.split("\n").filter((l) => l.endsWith("recorded; the next pulumi up completes it"))).toHaveLength(4);
    await finishes(e, s, count);
  }, 300_000);

  it("the other way Pulumi offers, pending creates cleared (pulumi refresh --clear-pending-creates): the refusal names pulumi-svc-recover --cleared, which records the four; the next up finishes", async () => {
    const e = emu();
    const { s, count } = await cancelledStack(e);
    await killedUp(e, s);
    expect((await s.run(["cancel", "--yes"])).code).toBe(0);
    expect((await s.refresh(["--clear-pending-creates"])).code).toBe(0);
    expect((await s.state() as { pending_operations?: unknown[] }).pending_operations ?? []).toEqual([]);
    namesCommand(await s.up(), "npx pulumi-svc-recover` in this project (with --cleared");
    expect(await count()).toEqual({ hooks: 1, methods: 1, runs: 1 });

    // Without --cleared nothing is pending: it says which way to take and changes nothing.
    const plain = await recover(s);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("run npx pulumi-svc-recover --cleared");
    const recovered = await recover(s, "--cleared");
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(recovered.stdout.split("\n").filter((l) => l.endsWith("recorded; the next pulumi up completes it")).map((l) => l.split(":")[0]).sort())
      .toEqual(["deploy", "digits", "duo", "hook"]);
    // Secrets the record could not seal are left out of it: none is in the state in plain text.
    expect(await s.exportText()).not.toContain("duo-secret-key-77");
    await finishes(e, s, count);
  }, 300_000);
});
