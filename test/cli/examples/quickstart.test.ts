// examples/quickstart: the webhook is verified with a signed request; step2 edits the notification
// configuration in place and replaces the renamed template, deleting before creating.
import { expect } from "vitest";
import { control, runApi, secretsApi } from "../../support/emulator";
import { describeExample } from "../example";
import type { Context, ExampleChecks } from "../lifecycle";

const status = async (c: Context, path: string) => (await secretsApi(c.emu, "GET", path)).status;
const configurations = async (c: Context): Promise<{ id: string; attributes: Record<string, unknown> }[]> =>
  (await runApi(c.emu, "GET", `/workspaces/${c.emu.workspaceId}/notification-configurations`)).body.data;

let hookId = "";

const checks: ExampleChecks = {
  after: {
    async up(c) {
      expect(await status(c, "/transform/alphabet/digits")).toBe(200);
      expect(await status(c, "/transform/template/us-ssn")).toBe(200);
      const sink = await control<{ requests: { headers: Record<string, string> }[] }>(c.emu, "GET", "/sinks/quickstart");
      expect(sink.requests.at(-1)!.headers["x-svc-notification-signature"]).toMatch(/^[0-9a-f]{128}$/);
      const [only, ...more] = await configurations(c);
      expect(more).toEqual([]);
      hookId = only!.id;
    },
    async "step2 up"(c) {
      expect(await status(c, "/transform/template/us-ssn-v2")).toBe(200);
      expect(await status(c, "/transform/template/us-ssn")).toBe(404);
      const [after, ...more] = await configurations(c);
      expect(more).toEqual([]);
      expect(after!.id, "updated in place").toBe(hookId);
      expect(after!.attributes.triggers).toEqual(expect.arrayContaining(["run:needs_attention"]));
      expect(await c.side.shownOutputs()).toMatchObject({ alphabet: "0123456789abcdef", templateName: "us-ssn-v2" });
    },
    async "refresh after a delete"(c) {
      expect(await status(c, "/transform/template/us-ssn-v2")).toBe(200);
    },
    async destroy(c) {
      expect(await status(c, "/transform/alphabet/digits")).toBe(404);
      expect(await status(c, "/transform/template/us-ssn-v2")).toBe(404);
      expect(await configurations(c)).toEqual([]);
    },
  },
};

// The sample whose program the CLI's ts-node type-checks, as for a user (the other lifecycles only
// transpile: test/docs/examples.test.ts type-checks every example once).
describeExample("quickstart", checks, { typeCheck: true });
