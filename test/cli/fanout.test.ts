// Run fan-out under the real Pulumi CLI (docs/runs.md#run-fan-out): one `up` of 80 Run resources on
// 80 workspaces, a quarter of them on workspaces whose runs never finish. The program is the
// "fanout" scenario of test/cli/programs/behaviours. Wall times are printed, never asserted; the
// time against the longest timeout is bench/fanout.ts's figure.
import * as path from "node:path";
import { afterAll, expect, it } from "vitest";
import { control, requests, runApi, useEmulator } from "../support/emulator";
import { CliStack, describeCli, ops } from "./cli";

const program = path.join(__dirname, "programs/behaviours/index.js");
const COUNT = 80;
const TIMEOUT_SECONDS = 8;

// Every active run moves a step each 50 ms: a run that is not held is applied within a second.
const { emu } = useEmulator({ autoAdvanceMs: 50, reset: false, env: false });
let stack: CliStack | undefined;

afterAll(async () => {
  stack?.remove();
});

/** What each workspace does with its runs: most finish; one in 8 is held in planning, one in 8 stops at a soft-failed policy. */
type Kind = "finishes" | "held" | "override";
const kindOf = (i: number): Kind => (i % 8 === 3 ? "held" : i % 8 === 7 ? "override" : "finishes");
const FINAL: Record<Kind, string> = { finishes: "applied", held: "canceled", override: "discarded" };

async function runsOf(workspaceId: string): Promise<{ id: string; status: string }[]> {
  const r = await runApi(emu, "GET", `/workspaces/${workspaceId}/runs?page%5Bsize%5D=100`);
  expect(r.status).toBe(200);
  return (r.body.data as { id: string; attributes: { status: string } }[]).map((d) => ({ id: d.id, status: d.attributes.status }));
}

describeCli("run fan-out under the real Pulumi CLI", () => {
  it("80 Runs on 80 workspaces in one up, a quarter never finishing: every run applied or stopped at its timeout, one line per timeout, nothing left active; the next up refreshes the 20 and queues nothing", async () => {
    const workspaces = Array.from({ length: COUNT }, (_, i) => ({
      id: `ws-fan${String(i).padStart(3, "0")}`,
      name: `fan-${i}`,
      ...(kindOf(i) === "held" ? { holdRunsAt: "planning" } : kindOf(i) === "override" ? { policy: "soft-failed" } : {}),
    }));
    await control(emu, "POST", "/seed", { workspaces, configurationVersions: workspaces.map((w) => ({ workspaceId: w.id })) });
    stack = await CliStack.create({
      project: "behaviours-fanout",
      program,
      config: {
        "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "behaviours:scenario": "fanout",
        "behaviours:workspaces": workspaces.map((w) => w.id).join(","), "behaviours:timeoutSeconds": String(TIMEOUT_SECONDS),
      },
      secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser },
    });
    await control(emu, "DELETE", "/requests");
    await control(emu, "PUT", "/throttle", {}); // only to read the peak of requests at once

    // Every create at once: with the default --parallel (4 per core) the engine would take the
    // waiting creates a few at a time (docs/runs.md#run-fan-out).
    const started = Date.now();
    const r = await stack.run(["up", "--yes", "--skip-preview", "--parallel", String(COUNT + 20)]);
    const seconds = (Date.now() - started) / 1000;
    const { peak } = await control<{ peak: number }>(emu, "GET", "/throttle");
    console.log(`fan-out: up of ${COUNT} Runs (timeoutSeconds ${TIMEOUT_SECONDS}) took ${seconds.toFixed(1)} s, exit ${r.code}; peak of requests at once ${peak}`);
    // Ended by itself with a failure (a kill at the time limit would be -1).
    expect(r.code, r.stdout + r.stderr).toBeGreaterThan(0);

    // One error line per timed-out run (the engine puts it under "1 error occurred:"), no stack frame.
    const text = r.stdout + r.stderr;
    expect(text.split("\n").filter((l) => /^\s+at .+[(:]/.test(l))).toEqual([]);
    const reasons = r.stdout.split("\n").filter((l) => /^\s+\* /.test(l));
    expect(reasons, reasons.join("\n")).toHaveLength(COUNT / 4);

    // On the service: one run per workspace, in the final status its kind leads to.
    const state = await stack.state();
    const runs = state.resources.filter((q) => q.type === "pulumi-nodejs:dynamic/runs:Run");
    expect(runs).toHaveLength(COUNT);
    for (const [i, w] of workspaces.entries()) {
      const listed = await runsOf(w.id);
      expect(listed.map((q) => q.status), w.id).toEqual([FINAL[kindOf(i)]]);
      const kept = runs.find((q) => q.urn.endsWith(`::fan-${i}`))!;
      expect(kept.id).toBe(listed[0].id);
      // The timed-out ones are partial failures: in state with the error, status as the service had it after the stop.
      if (kindOf(i) === "finishes") {
        expect(kept.initErrors ?? []).toEqual([]);
        expect(kept.outputs?.status).toBe("applied");
      } else {
        // Held in planning, the wait for confirmation runs out; at a policy override it waits on for completion.
        const reason = kindOf(i) === "held"
          ? `* run ${kept.id} did not reach confirmation within ${TIMEOUT_SECONDS} s (it is planning); it was canceled (run ${kept.id} is kept in state; change triggers to queue a new run)`
          : `* run ${kept.id} did not reach completed within ${TIMEOUT_SECONDS} s (it is policy_override); it was discarded (run ${kept.id} is kept in state; change triggers to queue a new run)`;
        expect(reasons.filter((l) => l.trim() === reason), w.id).toHaveLength(1);
        expect(kept.initErrors?.join("\n")).toContain(reason.slice(2));
        expect([kindOf(i) === "held" ? "planning" : "policy_override", FINAL[kindOf(i)]]).toContain(kept.outputs?.status);
      }
    }

    // The next up: the 20 partial failures are updated (their status read again), nothing is queued.
    await control(emu, "DELETE", "/requests");
    const again = await stack.up(["--parallel", String(COUNT + 20)]);
    expect(again.code, again.text).toBe(0);
    const expected = Object.fromEntries(workspaces.flatMap((_, i) => (kindOf(i) === "finishes" ? [] : [[`fan-${i}`, "update"]])));
    expect(ops(again)).toEqual(expected);
    expect((await requests(emu)).filter((q) => q.method !== "GET")).toEqual([]);
    for (const q of (await stack.state()).resources.filter((q) => q.type === "pulumi-nodejs:dynamic/runs:Run")) {
      const i = Number(q.urn.split("::fan-")[1]);
      expect(q.initErrors ?? []).toEqual([]);
      expect(q.outputs?.status).toBe(FINAL[kindOf(i)]);
    }

    // No workspace is left locked: a new run on each takes the lock at once, so one step (the clock
    // stopped) leaves pending; behind a lock the step would be refused.
    await control(emu, "PUT", "/clock", { autoAdvanceMs: 0 });
    for (const w of workspaces) {
      const created = await runApi(emu, "POST", "/runs", { data: { type: "runs", attributes: {}, relationships: { workspace: { data: { type: "workspaces", id: w.id } } } } });
      expect(created.status).toBe(201);
      const moved = await fetch(`${emu.controlUrl}/runs/${created.body.data.id}/advance`, { method: "POST" });
      const answer = await moved.json() as { data?: { attributes: { status: string } }; error?: string };
      expect(answer.data?.attributes.status, `${w.id}: ${answer.error}`).toBe("plan_queued");
    }
  }, 300_000);
});
