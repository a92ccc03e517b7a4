// examples/runs: the run is queued, applied when confirmable and waited for; step2's replacement
// queues a new run and leaves the ended one alone; destroy acts on no ended run.
import { expect } from "vitest";
import { runApi } from "../../support/emulator";
import { describeExample } from "../example";
import type { Context, ExampleChecks } from "../lifecycle";

const runsOf = async (c: Context): Promise<{ id: string; attributes: Record<string, any> }[]> =>
  (await runApi(c.emu, "GET", `/workspaces/${c.emu.workspaceId}/runs`)).body.data;

let firstRun = "";

const checks: ExampleChecks = {
  after: {
    async up(c) {
      const [only, ...more] = await runsOf(c);
      expect(more).toEqual([]);
      // The message ends with the Run's claim (docs/behaviour.md, "When a deploy is cancelled").
      expect(only!.attributes).toMatchObject({ status: "applied", message: expect.stringMatching(/^Deploy from the runs example \[pulumi-svc [0-9a-f]{12}\]$/),
        variables: [{ key: "environment", value: "\"staging\"" }] });
      expect(await c.side.shownOutputs()).toMatchObject({ runId: only!.id, status: "applied", appliedAt: expect.any(String) });
      firstRun = only!.id;
    },
    async "step2 up"(c) {
      const all = await runsOf(c);
      expect(all).toHaveLength(2);
      const fresh = all.find((x) => x.id !== firstRun)!;
      expect(fresh.attributes.status).toBe("applied");
      // Ended runs are left alone.
      expect(all.find((x) => x.id === firstRun)!.attributes.status).toBe("applied");
      expect(await c.side.shownOutputs()).toMatchObject({ runId: fresh.id, status: "applied" });
    },
    async destroy(c) {
      expect(await c.writes(), "destroy acts on no ended run").toEqual([]);
    },
  },
};

describeExample("runs", checks);
