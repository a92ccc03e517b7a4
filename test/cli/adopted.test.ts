// Objects taken over from outside Pulumi (docs/adopting.md), under the real Pulumi CLI, where the
// issue-45 trial went wrong:
// - a destroy that stops at a key whose deletionAllowed is false has deleted what came before it;
//   the error's advice (deploy the flag to the key alone, `pulumi up --target`) followed as
//   printed lets the destroy finish, recreating nothing (a plain `pulumi up` would have created
//   the deleted objects again and failed on the adoptId whose object was gone);
// - two stacks taking over the same objects: the services record no owner, so both succeed, each
//   warned; the second's destroy deletes the first's objects, the first's plain preview says
//   unchanged, and its `pulumi preview --refresh` reviewed with --drift names each one gone, the
//   registry's access config included (issue 52).
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { expect, it } from "vitest";
import { control, runApi, secretsApi, useEmulator } from "../support/emulator";
import { root } from "../support/dist";
import { CliStack, describeCli } from "./cli";

// Stack config names the emulator; each test resets it for what it seeds.
const { emu } = useEmulator({ reset: false, env: false });

const program = path.join(__dirname, "programs/adopted/index.js");

/** The objects made by hand, as on the server the import read; the configuration's id. */
async function byHand(deletionAllowed: boolean): Promise<string> {
  await control(emu, "POST", "/reset");
  expect((await secretsApi(emu, "POST", "/keymgmt/key/signing", { type: "ecdsa-p256" })).status).toBeLessThan(300);
  expect((await secretsApi(emu, "POST", "/keymgmt/key/signing", { deletion_allowed: deletionAllowed })).status).toBeLessThan(300);
  expect((await secretsApi(emu, "POST", "/transform/alphabet/digits", { alphabet: "0123456789" })).status).toBeLessThan(300);
  const nc = await runApi(emu, "POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
    data: { type: "notification-configurations", attributes: { name: "by-hand", "destination-type": "generic", enabled: false, url: "https://hooks.example/by-hand", triggers: ["run:completed"] } },
  });
  expect(nc.status).toBe(201);
  return nc.body.data.id as string;
}

const stack = (project: string, hookId: string, deletionAllowed: boolean, registryToken?: string) => CliStack.create({
  project, program,
  config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "adopted:workspaceId": emu.workspaceId, "adopted:hookId": hookId, "adopted:deletionAllowed": String(deletionAllowed) },
  secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsRoot, ...(registryToken ? { "adopted:registryToken": registryToken } : {}) },
});

const hooks = async () => (await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/notification-configurations`)).body.data as unknown[];
const status = async (p: string) => (await secretsApi(emu, "GET", p)).status;

describeCli("objects taken over from outside Pulumi, under the real CLI", () => {
  it("a destroy stopped by a key's deletionAllowed: the error's advice, followed as printed, finishes it without recreating anything", async () => {
    const hookId = await byHand(false);
    const s = await stack("adopted-partial", hookId, false);
    try {
      expect((await s.up()).code).toBe(0);
      const destroy = await s.destroy();
      expect(destroy.code).not.toBe(0);
      // What the destroy deleted before it stopped.
      expect(await status("/transform/alphabet/digits")).toBe(404);
      expect(await hooks()).toEqual([]);
      const advice = /pulumi up --target '([^']+)'/.exec(destroy.text);
      expect(advice, destroy.text).not.toBeNull();
      expect(advice![1]).toMatch(/::pulumi-nodejs:dynamic\/secrets:KeymgmtKey::signing$/);
      expect(destroy.text).toContain("after a partial pulumi destroy, a plain pulumi up would create again everything the destroy deleted");

      await s.setConfig({ "adopted:deletionAllowed": "true" });
      // Why not a plain up: it would create the deleted objects again; its preview already fails on hook's adoptId.
      const plain = await s.preview();
      expect(plain.code).not.toBe(0);
      expect(JSON.stringify(plain.diagnostics)).toContain(`adoptId ${hookId}: there is no NotificationConfiguration with this id on the server`);
      const targeted = await s.run(["up", "--yes", "--skip-preview", "--target", advice![1]!]);
      expect(targeted.code, targeted.stdout + targeted.stderr).toBe(0);
      expect(await status("/transform/alphabet/digits")).toBe(404);
      expect(await hooks()).toEqual([]);
      expect((await secretsApi(emu, "GET", "/keymgmt/key/signing")).body.data.deletion_allowed).toBe(true);

      const again = await s.destroy();
      expect(again.code, again.text).toBe(0);
      expect(await status("/keymgmt/key/signing")).toBe(404);
      expect(await status("/transform/alphabet/digits")).toBe(404);
    } finally {
      s.remove();
    }
  }, 600_000);

  it("two stacks taking over the same objects: both warned; the second's destroy deletes them; the first's plain preview says unchanged, its preview --refresh names each gone (a dead adoptId as the failure it is)", async () => {
    const hookId = await byHand(true);
    const registryToken = (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" })).token;
    expect((await secretsApi(emu, "POST", "/registry/config/access", { address: "registry.internal:8500", token: registryToken })).status).toBe(204);
    const first = await stack("adopted-first", hookId, true, registryToken);
    const second = await stack("adopted-second", hookId, true, registryToken);
    try {
      for (const s of [first, second]) {
        const up = await s.up();
        expect(up.code, up.text).toBe(0);
        const warnings = (up.diagnostics ?? []).filter((d) => d.severity === "warning" && d.message.includes("taken over from outside this stack"));
        expect(warnings.map((w) => /pulumi-svc: (\S+): taken over/.exec(w.message)?.[1]).sort()).toEqual([hookId, "keymgmt/key/signing", "registry/config/access", "transform/alphabet/digits"].sort());
        expect(warnings[0]!.message).toContain("pulumi preview --refresh shows it gone");
      }
      expect((await second.destroy()).code).toBe(0);
      expect(await status("/transform/alphabet/digits")).toBe(404);
      expect(await status("/keymgmt/key/signing")).toBe(404);
      expect(await status("/registry/config/access")).toBe(404);
      expect(await hooks()).toEqual([]);

      // A plain preview reads nothing: the first stack still says unchanged.
      expect((await first.run(["preview", "--expect-no-changes"])).code).toBe(0);
      const refreshed = await first.run(["preview", "--refresh", "--show-sames", "--json"], 300_000, { PULUMI_DEBUG_COMMANDS: undefined });
      // The preview fails at hook's adoptId, whose object the second stack deleted, and still lists what the refresh read.
      expect(refreshed.code, refreshed.stderr).toBe(1);
      const review = spawnSync(process.execPath, [path.join(root, "dist/src/review/cli.js"), "--drift", "-"], { input: refreshed.stdout, encoding: "utf8" });
      // The review of a failed preview exits 3, the failure first: hook's object is named gone by its adoptId.
      expect(review.status, review.stderr).toBe(3);
      expect(review.stdout).toContain(`\`hook\` (runs:NotificationConfiguration): \`pulumi-nodejs:dynamic/runs:NotificationConfiguration resource 'hook': property adoptId value {${hookId}} has a problem: adoptId ${hookId}: there is no NotificationConfiguration with this id on the server`);
      // The engine stops at that check: what it had refreshed by then is named gone, the rest not compared.
      expect(review.stdout).toMatch(/\*\*Drift:\*\* [1-3] gone from the server, [1-3] not compared\./);
      expect(review.stdout).toContain("#### gone from the server: `signing`");

    } finally {
      first.remove();
      second.remove();
    }
  }, 600_000);
});
