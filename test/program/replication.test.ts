// The replication example through the engine double: two clusters of one emulator, each reached
// through its own connection; step2 changes the paths filter; destroy disables the secondary.
import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../src/engine/program";
import { useProgram } from "../support/program";

const { emu, run, ops, get, writes: writesOn, clearRequests, stateText } = useProgram({
  example: "replication", project: "pulumi-svc-replication", clusters: 2, services: ["secrets"],
  config: ({ emu }) => ({ "replication:primaryUrl": emu.clusters[0].secretsUrl, "replication:secondaryUrl": emu.clusters[1].secretsUrl }),
  // The default token is not sudo; the primary's connection brings one (secondary-token needs it).
  secretConfig: ({ emu }) => ({ "replication:primaryToken": emu.clusters[0].secretsToken, "replication:secondaryToken": emu.clusters[1].secretsToken }),
  // Something of west's own, to see the wipe.
  setup: async (p) => {
    expect((await p.secretsApi("POST", "/transform/alphabet/west-only", { alphabet: "ab" }, p.emu.clusters[1])).status).toBe(204);
  },
});

const ALL = ["east", "west-token", "west", "west-filter", "digits", "signing"];
const secrets = (cluster: number, p: string) => get(`/${p}`, emu.clusters[cluster]);
const writes = (cluster: number) => writesOn(emu.clusters[cluster]);

describe("the replication example through the engine double", () => {
  it("previews every create without a write to either cluster; what is read on west is unknown", async () => {
    for (const c of emu.clusters) await clearRequests(c);
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual(Object.fromEntries(ALL.map((n) => [n, "create"])));
    expect(r.outputs.alphabetsOnSecondary).toBe(UNKNOWN);
    expect(await writes(0)).toEqual([]);
    expect(await writes(1)).toEqual([]);
  });

  it("up: west is wiped and replicates east, except the filtered keymgmt/; tokens only encrypted in state", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    const east = (await secrets(0, "sys/replication/performance/status")).body.data;
    const west = (await secrets(1, "sys/replication/performance/status")).body.data;
    expect(r.outputs).toMatchObject({
      primaryClusterId: east.cluster_id,
      secondaryClusterId: west.cluster_id,
      secondaryState: "stream-wals",
      secondaryConnection: "connected",
      alphabetsOnSecondary: ["digits"],
      keysOnSecondary: [],
      filteredOnSecondary: ["keymgmt/"],
      knownSecondaries: ["west"],
    });
    expect((await secrets(1, "transform/alphabet/west-only")).status).toBe(404);
    expect((await secrets(1, "transform/alphabet/digits")).body.data).toEqual({ alphabet: "0123456789" });
    expect((await secrets(1, "keymgmt/key/signing")).status).toBe(404);
    expect((await secrets(0, "keymgmt/key/signing")).status).toBe(200);

    const text = stateText();
    for (const c of emu.clusters) expect(text).not.toContain(c.secretsToken);
    const disk = JSON.parse(text) as { resources: { name: string; outputs: Record<string, any> }[] };
    expect(disk.resources.find((x) => x.name === "west-token")!.outputs.token).toEqual({ secure: expect.any(String) });
    expect(disk.resources.find((x) => x.name === "west")!.outputs.token).toEqual({ secure: expect.any(String) });
  });

  it("a second up changes nothing", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual(Object.fromEntries(ALL.map((n) => [n, "same"])));
  });

  it("step2 updates the filter in place: the key reaches west, the alphabet leaves it", async () => {
    const r = await run("up", 2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ ...Object.fromEntries(ALL.map((n) => [n, "same"])), "west-filter": "update" });
    expect(r.outputs).toMatchObject({ alphabetsOnSecondary: [], keysOnSecondary: ["signing"], filteredOnSecondary: ["transform/"], secondaryState: "stream-wals" });
    expect((await secrets(1, "keymgmt/key/signing")).body.data.type).toBe("aes256-gcm96");
  });

  // A new ttl replaces the token (revoke, then issue), and west follows the new one with
  // update-primary: the primary drops west's filter at both. The filter takes west's activation, so
  // the same up writes it again, after west; transform/ must never become readable on west.
  it("a new token (tokenTtl) re-applies the deny filter in the same up: the withheld path stays unreadable on west", async () => {
    const r = await run("up", 2, { config: { "replication:tokenTtl": "2h" } });
    expect(r.error).toBeUndefined();
    expect((await secrets(1, "transform/alphabet/digits")).status, "the withheld alphabet on west").toBe(404);
    expect((await secrets(1, "keymgmt/key/signing")).status).toBe(200);
    expect(r.outputs).toMatchObject({ alphabetsOnSecondary: [], keysOnSecondary: ["signing"], filteredOnSecondary: ["transform/"], secondaryState: "stream-wals" });
    expect(ops(r)).toEqual({ ...Object.fromEntries(ALL.map((n) => [n, "same"])), "west-token": "replace", west: "update", "west-filter": "update" });
    const westId = (await secrets(1, "sys/replication/performance/status")).body.data.cluster_id;
    expect((await secrets(0, `sys/replication/performance/primary/paths-filter/${westId}`)).body.data).toEqual({ mode: "deny", paths: ["transform/"] });
    const again = await run("up", 2, { config: { "replication:tokenTtl": "2h" } });
    expect(ops(again)).toEqual(Object.fromEntries(ALL.map((n) => [n, "same"])));
  });

  it("refresh finds everything in place", async () => {
    const r = await run("refresh", 2);
    expect(r.error).toBeUndefined();
    expect(r.steps.filter((s) => s.op !== "refresh" && s.op !== "same").map((s) => `${s.name}:${s.op}`)).toEqual([]);
  });

  it("destroy disables west and revokes its token; east stays primary (disableOnDelete is not set)", async () => {
    const r = await run("destroy", 2);
    expect(r.error).toBeUndefined();
    expect((await secrets(1, "sys/replication/performance/status")).body.data).toEqual({ mode: "disabled" });
    const east = (await secrets(0, "sys/replication/performance/status")).body.data;
    expect(east).toMatchObject({ mode: "primary", known_secondaries: [] });
  });
});
