// examples/replication on two clusters: west is wiped and replicates east except the filtered
// keymgmt/; step2's filter lets the key through and withholds the alphabet, and east takes a new
// cluster address (demoted and promoted back, keeping its cluster id and west); a new token (tokenTtl)
// re-applies the deny filter in the same up, so the withheld path never becomes readable on west.
import { expect } from "vitest";
import { secretsApi } from "../../support/emulator";
import { describeExample } from "../example";
import type { Context, ExampleChecks } from "../lifecycle";

const on = (c: Context, cluster: number, path: string, method = "GET", body?: unknown) => {
  const k = c.emu.clusters[cluster]!;
  return secretsApi({ secretsUrl: k.secretsUrl, tokens: { secretsRoot: k.secretsToken } }, method, path, body);
};

const checks: ExampleChecks = {
  after: {
    async preview(c) {
      // Something of west's own, to see the wipe.
      expect((await on(c, 1, "/transform/alphabet/west-only", "POST", { alphabet: "ab" })).status).toBe(204);
    },
    async up(c) {
      const east = (await on(c, 0, "/sys/replication/performance/status")).body.data;
      const west = (await on(c, 1, "/sys/replication/performance/status")).body.data;
      expect(await c.side.shownOutputs()).toMatchObject({ primaryClusterId: east.cluster_id, secondaryClusterId: west.cluster_id });
      expect((await on(c, 1, "/transform/alphabet/west-only")).status).toBe(404);
      expect((await on(c, 1, "/transform/alphabet/digits")).body.data).toEqual({ alphabet: "0123456789" });
      expect((await on(c, 1, "/keymgmt/key/signing")).status).toBe(404);
      expect((await on(c, 0, "/keymgmt/key/signing")).status).toBe(200);
    },
    async "step2 up"(c) {
      expect((await on(c, 1, "/keymgmt/key/signing")).body.data.type).toBe("aes256-gcm96");
      // East was demoted and promoted back with the new address; it kept its cluster id and west.
      const east = (await on(c, 0, "/sys/replication/performance/status")).body.data;
      expect(east).toMatchObject({ mode: "primary", primary_cluster_addr: "https://east.example.internal:8201", known_secondaries: ["west"] });
      expect(await c.side.shownOutputs()).toMatchObject({ primaryClusterId: east.cluster_id, secondaryConnection: "connected" });
    },
  },
  extra: [{
    // A new ttl replaces the token (revoke, then issue), and west follows the new one with
    // update-primary: the primary drops west's filter at both. The filter takes west's activation,
    // so the same up writes it again, after west; transform/ must never become readable on west.
    title: "a new token (tokenTtl) re-applies the deny filter in the same up: the withheld path stays unreadable on west",
    async run(c) {
      await c.side.configure({ "replication:tokenTtl": "2h" });
      const d = await c.side.up();
      expect((await on(c, 1, "/transform/alphabet/digits")).status, "the withheld alphabet on west").toBe(404);
      expect((await on(c, 1, "/keymgmt/key/signing")).status).toBe(200);
      expect(await c.side.shownOutputs()).toMatchObject({ alphabetsOnSecondary: [], keysOnSecondary: ["signing"], filteredOnSecondary: ["transform/"], secondaryState: "stream-wals" });
      expect(d.ops).toEqual({ "west-token": "replace", west: "update", "west-filter": "update" });
      const westId = (await on(c, 1, "/sys/replication/performance/status")).body.data.cluster_id;
      expect((await on(c, 0, `/sys/replication/performance/primary/paths-filter/${westId}`)).body.data).toEqual({ mode: "deny", paths: ["transform/"] });
      expect((await c.side.up()).ops).toEqual({});
      return d;
    },
  }],
};

describeExample("replication", checks);
