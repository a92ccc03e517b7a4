// Take-over by id (adoptId) under the real Pulumi CLI: objects made outside Pulumi are taken over
// with their ids, the first up writes only what differs, the next preview has no change, a second
// resource taking the same object is refused, and destroy deletes them (docs/adopting.md).
import * as path from "node:path";
import { expect, it } from "vitest";
import { control, runApi, secretsApi, useEmulator } from "../support/emulator";
import { CliStack, describeCli, ops } from "./cli";

const { emu } = useEmulator({ reset: false, env: false });

describeCli("take-over by id under the real Pulumi CLI", () => {
  it("takes over a notification configuration and an entity alias by id: nothing created, only what differs written, no change after; a second taker is refused; destroy deletes them", async () => {
    const nc = await runApi(emu, "POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
      data: { type: "notification-configurations", attributes: { name: "by-hand", "destination-type": "generic", enabled: false, url: "https://hooks.example/by-hand", triggers: ["run:completed"] } },
    });
    const hookId = nc.body.data.id as string;
    const alias = await secretsApi(emu, "POST", "/identity/entity-alias", { name: "carol", canonical_id: "ent-alice0000000001", mount_accessor: "auth_userpass_1234abcd" });
    const aliasId = alias.body.data.id as string;
    const s = await CliStack.create({
      project: "take-over",
      program: path.join(__dirname, "programs/take-over/index.js"),
      config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "takeover:workspaceId": emu.workspaceId, "takeover:hookId": hookId, "takeover:aliasId": aliasId },
      secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsRoot },
    });
    try {
      await control(emu, "DELETE", "/requests");
      const up = await s.up();
      expect(up.code, up.text).toBe(0);
      expect(ops(up)).toEqual({ hook: "create", alias: "create" });
      const held = Object.fromEntries((await s.state()).resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/")).map((r) => [r.urn.split("::").pop(), r.id]));
      expect(held).toEqual({ hook: hookId, alias: aliasId });
      // The configuration's triggers differed: one PATCH; the alias was the same: no write.
      const writes = (await control<{ requests: { method: string; path: string }[] }>(emu, "GET", "/requests")).requests
        .filter((q) => !["GET", "LIST"].includes(q.method)).map((q) => `${q.method} ${q.path}`);
      expect(writes).toEqual([`PATCH /api/v2/notification-configurations/${hookId}`]);
      expect((await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/notification-configurations`)).body.data).toHaveLength(1);
      expect((await s.run(["preview", "--expect-no-changes"])).code).toBe(0);

      await s.setConfig({ "takeover:step": "2" });
      const again = await s.run(["up", "--yes", "--skip-preview"]);
      expect(again.code).not.toBe(0);
      // Refused in the program, before either resource is registered (the provider process refuses
      // takers the program cannot see: test/integration/take-over.test.ts).
      expect(again.stdout).toContain(`runs:NotificationConfiguration "hook-again": adoptId ${hookId} is given to "hook" too; one object can belong to one resource`);
      expect(again.stdout).not.toContain("hook-again creating");
      expect((await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/notification-configurations`)).body.data).toHaveLength(1);

      await s.setConfig({ "takeover:step": "1" });
      const destroy = await s.destroy();
      expect(destroy.code, destroy.text).toBe(0);
      expect((await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/notification-configurations`)).body.data).toEqual([]);
      expect((await secretsApi(emu, "GET", `/identity/entity-alias/id/${aliasId}`)).status).toBe(404);
    } finally {
      s.remove();
    }
  }, 300_000);
});
