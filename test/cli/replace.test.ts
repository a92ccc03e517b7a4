// `pulumi up --replace` under the real Pulumi CLI, for one kind of each sort: an object at a path
// (an alphabet), one whose id the service assigns (a notification configuration) and a Run. The
// engine asks no diff then, so the order is the resource option's: every kind deletes first by
// default (docs/behaviour.md, "Replaced on request"). The replacement is killed after its creates
// have acted, as CI cancels a job, and the messages lead to the end state; then replaced again
// whole. Every kind is replaced under the engine double in test/engine/replace.test.ts.
import * as path from "node:path";
import { expect, it } from "vitest";
import { control, runApi, secretsApi } from "../support/emulator";
import { root } from "../support/dist";
import { CliStack, cliScenarios, describeCli, nameOf, stopTree } from "./cli";

const { emu, stacks } = cliScenarios();

describeCli("pulumi up --replace, under the real Pulumi CLI", () => {
  it("an alphabet, a notification configuration and a Run: deleted first, one object each; killed mid-way, pulumi-svc-recover and the next up finish it", async () => {
    const e = emu();
    const s = await CliStack.create({
      project: "replace", program: path.join(__dirname, "programs/cancelled/index.js"),
      config: { "svc:runUrl": e.runUrl, "svc:secretsUrl": e.secretsUrl, "cancelled:workspaceId": e.workspaceId },
      secretConfig: { "svc:runToken": e.tokens.runAdmin, "svc:secretsToken": e.tokens.secretsRoot, "cancelled:duoSecret": "duo-secret-key-78", "cancelled:duoKey": "DUOINTEGRATION78" },
    });
    stacks.push(s);
    await control(e, "PUT", "/clock", { autoAdvanceMs: 100 });
    const count = async () => {
      const runs = (await runApi(e, "GET", `/workspaces/${e.workspaceId}/runs`)).body.data as { attributes: { status: string } }[];
      return {
        hooks: (await runApi(e, "GET", `/workspaces/${e.workspaceId}/notification-configurations`)).body.data.length,
        alphabets: (((await secretsApi(e, "LIST", "/transform/alphabet")).body?.data?.keys ?? []) as string[]).filter((k) => !k.startsWith("builtin/")).length,
        applied: runs.filter((r) => r.attributes.status === "applied").length,
        runs: runs.length,
      };
    };
    expect((await s.up()).code).toBe(0);
    expect(await count()).toEqual({ hooks: 1, alphabets: 1, applied: 1, runs: 1 });
    const urns = Object.fromEntries((await s.state()).resources.map((r) => [nameOf(r.urn), r.urn]));
    const replace = ["digits", "hook", "deploy"].flatMap((n) => ["--replace", urns[n]!]);

    // Killed while the three replacements' creates have acted and their answers are held back.
    const creates = [["POST", "/v1/transform/alphabet/digits"], ["POST", `/api/v2/workspaces/${e.workspaceId}/notification-configurations`], ["POST", "/api/v2/runs"]];
    for (const [method, p] of creates) await control(e, "POST", "/faults", { method, path: p, hold: true, when: "after" });
    const up = s.start(["up", "--yes", "--skip-preview", ...replace]);
    try {
      const held = await control<{ timedOut?: boolean }>(e, "GET", `/faults/held?wait=${creates.length}&timeoutMs=60000`);
      expect(held.timedOut, JSON.stringify(held)).toBeFalsy();
    } finally {
      stopTree(up.pid, "SIGKILL");
    }
    expect((await up.done).code).not.toBe(0);
    await control(e, "DELETE", "/faults");
    // Deleted first: never two at once, and the old run was ended by its delete.
    expect(await count()).toMatchObject({ hooks: 1, alphabets: 1, runs: 2 });

    expect((await s.run(["cancel", "--yes"])).code).toBe(0);
    const refused = await s.up();
    expect(refused.code).not.toBe(0);
    const said = (refused.diagnostics ?? []).filter((d) => d.severity === "error" && d.urn && !d.urn.includes("pulumi:pulumi:Stack"));
    expect(said.length, refused.text).toBeGreaterThan(0);
    for (const d of said) expect(d.message, nameOf(d.urn!)).toContain("npx pulumi-svc-recover");
    const recovered = await s.command(process.execPath, [path.join(root, "dist/src/recover/cli.js"), "--stack", "dev"]);
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(recovered.stdout.split("\n").filter((l) => l.endsWith("recorded; the next pulumi up completes it")).map((l) => l.split(":")[0]).sort()).toEqual(["deploy", "digits", "hook"]);
    const finished = await s.up();
    expect(finished.code, finished.text).toBe(0);
    expect((await s.run(["preview", "--expect-no-changes"])).code).toBe(0);
    expect(await count()).toEqual({ hooks: 1, alphabets: 1, applied: 2, runs: 2 });

    // Replaced again, whole: each deleted before its successor is created.
    const again = await s.up(replace);
    expect(again.code, again.text).toBe(0);
    for (const n of ["digits", "hook", "deploy"]) {
      const ops = again.steps.filter((st) => nameOf(st.urn) === n).map((st) => st.op);
      expect(ops, n).toEqual(["delete-replaced", "replace", "create-replacement"]);
    }
    expect((await s.run(["preview", "--expect-no-changes"])).code).toBe(0);
    expect(await count()).toEqual({ hooks: 1, alphabets: 1, applied: 3, runs: 3 });
    expect((await s.destroy()).code).toBe(0);
    await control(e, "PUT", "/clock", { autoAdvanceMs: 0 });
  }, 300_000);
});
