import * as pulumi from "@pulumi/pulumi";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import * as replication from "../../src/secrets/replication";
import { makeContext } from "../../src/core/context";
import { walk } from "../../src/import/walk";
import { checked, failures, type Props } from "../support/calls";
import { control, requests, useEmulator } from "../support/emulator";
import { useEnv } from "../support/env";
import { rejectionOf } from "../support/errors";

// Two clusters: A (0) will be the primary, B (1) the secondary. The environment names neither:
// every resource and function gets its cluster through a connection, as a program would.
const { emu } = useEmulator({ clusters: 2, env: false });
useEnv({ SVC_SECRETS_URL: undefined, SVC_SECRETS_TOKEN: undefined, SVC_MAX_RETRIES: "0" });

const PRIMARY = "secrets:ReplicationPerformancePrimary";
const TOKEN = "secrets:ReplicationSecondaryToken";
const SECONDARY = "secrets:ReplicationPerformanceSecondary";
const FILTER = "secrets:ReplicationPathsFilter";
const A = 0;
const B = 1;
const conn = (i: number) => ({ url: emu.clusters[i].secretsUrl, token: emu.clusters[i].secretsToken });

/** A raw request to cluster i with its root token. */
async function raw(i: number, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await request(`${emu.clusters[i].secretsUrl}/${path}`, {
    method: method as "GET",
    headers: { "x-svc-token": emu.clusters[i].secretsToken, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

const status = async (i: number) => (await raw(i, "GET", "sys/replication/performance/status")).body.data;
const logged = async (i: number) => (await requests(emu.clusters[i])).map((r) => `${r.method} ${r.path}`);

async function create(kind: string, news: Props): Promise<{ id: string; outs: Props }> {
  return (await call(kind, "create", [await checked(kind, news)])) as { id: string; outs: Props };
}

/** Primary on A, a token for `id`, and B enabled with it. */
async function connectedPair(id = "b") {
  const primary = await create(PRIMARY, { connection: conn(A) });
  const token = await create(TOKEN, { secondaryId: id, connection: conn(A) });
  const secondary = await create(SECONDARY, { token: token.outs.token, acknowledgeDataWipe: true, connection: conn(B) });
  return { primary, token, secondary };
}

describe("PerformancePrimary", () => {
  it("create enables and outputs the cluster id; read is no diff; delete leaves the cluster primary by default", async () => {
    const { id, outs } = await create(PRIMARY, { connection: conn(A) });
    const s = await status(A);
    expect(s.mode).toBe("primary");
    expect(id).toBe("sys/replication/performance/primary");
    expect(outs).toMatchObject({ clusterId: s.cluster_id, disableOnDelete: false, serverUrl: emu.clusters[A].secretsUrl });
    const read = (await call(PRIMARY, "read", [id, outs])) as { props: Props };
    expect(read.props).toEqual(outs);
    expect(await call(PRIMARY, "diff", [id, read.props, await checked(PRIMARY, { connection: conn(A) })])).toMatchObject({ changes: false });
    await call(PRIMARY, "delete", [id, outs]);
    expect((await status(A)).mode).toBe("primary");
  });

  it("disableOnDelete disables on delete; a primary disabled out of band reads as gone", async () => {
    const { id, outs } = await create(PRIMARY, { disableOnDelete: true, connection: conn(A) });
    await call(PRIMARY, "delete", [id, outs]);
    expect((await status(A)).mode).toBe("disabled");
    expect(await call(PRIMARY, "read", [id, outs])).toEqual({ id: "", props: {} });
  });

  it("changing primaryClusterAddr demotes and promotes back: same cluster id, secondaries stay connected", async () => {
    const { primary } = await connectedPair();
    const news = await checked(PRIMARY, { primaryClusterAddr: "https://a.internal:8201", connection: conn(A) }, primary.outs);
    expect(await call(PRIMARY, "diff", [primary.id, primary.outs, news])).toMatchObject({ changes: true, replaces: [] });
    const { outs } = (await call(PRIMARY, "update", [primary.id, primary.outs, news])) as { outs: Props };
    expect(outs).toMatchObject({ clusterId: primary.outs.clusterId, primaryClusterAddr: "https://a.internal:8201" });
    expect(await status(A)).toMatchObject({ primary_cluster_addr: "https://a.internal:8201", known_secondaries: ["b"] });
    expect((await status(B)).state).toBe("stream-wals");
  });

  it("a second primary is refused with the service's message; check names a bad address", async () => {
    await create(PRIMARY, { connection: conn(A) });
    const err = await rejectionOf(create(PRIMARY, { connection: conn(B) }));
    expect(err.message).toContain("only one performance primary may be active in a replication set");
    expect(await failures(PRIMARY, { primaryClusterAddr: "10.0.0.1", disableOnDelete: "yes", connection: conn(A) })).toEqual({
      primaryClusterAddr: "must be an address such as https://10.0.0.1:8201", disableOnDelete: "must be a boolean",
    });
  });
});

describe("SecondaryToken", () => {
  it("the token is an output; changing the id replaces it (create first), changing the ttl deletes first", async () => {
    await create(PRIMARY, { connection: conn(A) });
    const { id, outs } = await create(TOKEN, { secondaryId: "b", ttl: "1h", connection: conn(A) });
    expect(id).toBe("b");
    expect(outs).toMatchObject({ secondaryId: "b", ttl: "1h", token: expect.stringMatching(/\./), creationTime: expect.any(String), wrappedAccessor: expect.any(String) });
    expect((await call(TOKEN, "read", [id, outs])) as { props: Props }).toMatchObject({ id: "b", props: outs });
    const renamed = await checked(TOKEN, { secondaryId: "c", ttl: "1h", connection: conn(A) }, outs);
    expect(await call(TOKEN, "diff", [id, outs, renamed])).toMatchObject({ replaces: ["secondaryId"], deleteBeforeReplace: false });
    const longer = await checked(TOKEN, { secondaryId: "b", ttl: "2h", connection: conn(A) }, outs);
    expect(await call(TOKEN, "diff", [id, outs, longer])).toMatchObject({ replaces: ["ttl"], deleteBeforeReplace: true });
  });

  it("delete revokes the secondary: it is disconnected at once", async () => {
    const { token } = await connectedPair();
    expect((await status(A)).known_secondaries).toEqual(["b"]);
    await call(TOKEN, "delete", [token.id, token.outs]);
    expect((await status(A)).known_secondaries).toEqual([]);
    expect((await status(B)).primaries[0].connection_status).toBe("disconnected");
  });

  it("with secondaryPublicKey the token is encrypted to the secondary; check refuses a malformed key and an empty id", async () => {
    await create(PRIMARY, { connection: conn(A) });
    const { secondaryPublicKey } = await replication.generateSecondaryPublicKey({}, { connection: conn(B) });
    const { outs } = await create(TOKEN, { secondaryId: "b", secondaryPublicKey, connection: conn(A) });
    expect(outs.wrappedAccessor).toBe("");
    await create(SECONDARY, { token: outs.token, acknowledgeDataWipe: true, connection: conn(B) });
    expect((await status(B)).state).toBe("stream-wals");
    expect(await failures(TOKEN, { secondaryId: "", secondaryPublicKey: "not base64!", ttl: 0, connection: conn(A) })).toEqual({
      secondaryId: "must not be empty", secondaryPublicKey: "must be the base64 public key from generateSecondaryPublicKey", ttl: "must be longer than 0",
    });
  });
});

describe("PerformanceSecondary", () => {
  it("check refuses it unless acknowledgeDataWipe is true, before any request", async () => {
    const msg = { acknowledgeDataWipe: expect.stringContaining("wipes every mount and object") };
    expect(await failures(SECONDARY, { token: "t", connection: conn(B) })).toEqual(msg);
    expect(await failures(SECONDARY, { token: "t", acknowledgeDataWipe: false, connection: conn(B) })).toEqual(msg);
    expect(await failures(SECONDARY, { token: "", acknowledgeDataWipe: true, primaryApiAddr: "nope", connection: conn(B) })).toEqual({
      token: "must not be empty: the token of a SecondaryToken", primaryApiAddr: "must be an http(s) URL of the primary's API",
    });
    expect(await logged(B)).toEqual([]);
  });

  it("create wipes the cluster and joins; data written on the primary is read on the secondary; read is no diff", async () => {
    expect((await raw(B, "POST", "transform/alphabet/mine", { alphabet: "ab" })).status).toBe(204);
    expect((await raw(A, "POST", "transform/alphabet/shared", { alphabet: "0123456789" })).status).toBe(204);
    const { secondary, token } = await connectedPair();
    const s = await status(B);
    expect(secondary.id).toBe("sys/replication/performance/secondary");
    expect(secondary.outs).toMatchObject({ clusterId: s.cluster_id, secondaryId: "b", primaryClusterAddr: emu.clusters[A].url, token: token.outs.token, acknowledgeDataWipe: true, activation: 1 });
    expect((await raw(B, "GET", "transform/alphabet/mine")).status).toBe(404);
    expect((await raw(B, "GET", "transform/alphabet/shared")).body.data).toEqual({ alphabet: "0123456789" });
    const read = (await call(SECONDARY, "read", [secondary.id, secondary.outs])) as { props: Props };
    expect(read.props).toEqual(secondary.outs);
    const same = await checked(SECONDARY, { token: token.outs.token, acknowledgeDataWipe: true, connection: conn(B) }, secondary.outs);
    expect(await call(SECONDARY, "diff", [secondary.id, read.props, same])).toMatchObject({ changes: false });
  });

  it("a new token is an update-primary: no wipe, no re-enable; other changes need a token", async () => {
    const { secondary } = await connectedPair();
    await control(emu.clusters[B], "POST", "/mounts", { path: "b-local", type: "transform" });
    expect((await raw(B, "POST", "b-local/alphabet/kept", { alphabet: "ab" })).status).toBe(204);
    const next = await create(TOKEN, { secondaryId: "b2", connection: conn(A) });
    await control(emu.clusters[B], "DELETE", "/requests");
    const news = await checked(SECONDARY, { token: next.outs.token, acknowledgeDataWipe: true, connection: conn(B) }, secondary.outs);
    expect(await call(SECONDARY, "diff", [secondary.id, secondary.outs, news])).toMatchObject({ changes: true, replaces: [] });
    const { outs } = (await call(SECONDARY, "update", [secondary.id, secondary.outs, news])) as { outs: Props };
    expect(outs).toMatchObject({ secondaryId: "b2", clusterId: secondary.outs.clusterId, activation: 2 });
    expect(await logged(B)).toContain("POST /v1/sys/replication/performance/secondary/update-primary");
    expect(await logged(B)).not.toContain("POST /v1/sys/replication/performance/secondary/enable");
    expect((await raw(B, "GET", "b-local/alphabet/kept")).status).toBe(200);
    const caOnly = await checked(SECONDARY, { token: next.outs.token, caPath: "/etc/ssl/certs", acknowledgeDataWipe: true, connection: conn(B) }, outs);
    const err = await rejectionOf(call(SECONDARY, "update", [secondary.id, outs, caOnly]));
    expect(err.message).toContain("issue a new SecondaryToken");
  });

  it("delete disables the secondary; a used or foreign token is refused without its text in the message", async () => {
    const { secondary, token } = await connectedPair();
    await call(SECONDARY, "delete", [secondary.id, secondary.outs]);
    expect((await status(B)).mode).toBe("disabled");
    expect(await call(SECONDARY, "read", [secondary.id, secondary.outs])).toEqual({ id: "", props: {} });
    const err = await rejectionOf(create(SECONDARY, { token: token.outs.token, acknowledgeDataWipe: true, connection: conn(B) }));
    expect(err.message).toContain("does not know this activation token");
    expect(err.message).not.toContain(String(token.outs.token));
  });
});

describe("PathsFilter", () => {
  it("a deny filter removes the mount from the secondary; update switches mode; delete brings it back", async () => {
    expect((await raw(A, "POST", "keymgmt/key/k", { type: "aes256-gcm96" })).status).toBe(204);
    expect((await raw(A, "POST", "transform/alphabet/t", { alphabet: "ab" })).status).toBe(204);
    const { secondary } = await connectedPair();
    const clusterId = secondary.outs.clusterId as string;
    const { id, outs } = await create(FILTER, { secondaryClusterId: clusterId, mode: "deny", paths: ["keymgmt/"], connection: conn(A) });
    expect(id).toBe(`sys/replication/performance/primary/paths-filter/${clusterId}`);
    expect(outs).toMatchObject({ secondaryClusterId: clusterId, mode: "deny", paths: ["keymgmt/"] });
    expect((await raw(B, "GET", "keymgmt/key/k")).status).toBe(404);
    expect((await raw(B, "GET", "transform/alphabet/t")).status).toBe(200);
    const read = (await call(FILTER, "read", [id, outs])) as { props: Props };
    expect(read.props).toEqual(outs);
    const news = await checked(FILTER, { secondaryClusterId: clusterId, mode: "allow", paths: ["keymgmt/"], connection: conn(A) }, outs);
    expect(await call(FILTER, "diff", [id, outs, news])).toMatchObject({ changes: true, replaces: [] });
    await call(FILTER, "update", [id, outs, news]);
    expect((await raw(B, "GET", "keymgmt/key/k")).status).toBe(200);
    expect((await raw(B, "GET", "transform/alphabet/t")).status).toBe(404);
    await call(FILTER, "delete", [id, outs]);
    expect((await raw(B, "GET", "transform/alphabet/t")).status).toBe(200);
  });

  it("check: paths are mount paths ending in /, mode allow or deny; a filter existing already needs adopt", async () => {
    expect(await failures(FILTER, { secondaryClusterId: "x", mode: "block", paths: ["keymgmt"], connection: conn(A) })).toEqual({
      mode: "must be allow or deny", "paths[0]": "must be a mount path ending in /, such as transform/",
    });
    const { secondary } = await connectedPair();
    const clusterId = secondary.outs.clusterId as string;
    expect((await raw(A, "POST", `sys/replication/performance/primary/paths-filter/${clusterId}`, { mode: "deny", paths: ["transform/"] })).status).toBe(204);
    expect((await rejectionOf(create(FILTER, { secondaryClusterId: clusterId, paths: ["keymgmt/"], connection: conn(A) }))).message).toContain("already exists");
    const adopted = await create(FILTER, { secondaryClusterId: clusterId, paths: ["keymgmt/"], adopt: true, connection: conn(A) });
    expect(adopted.outs).toMatchObject({ mode: "allow", paths: ["keymgmt/"] });
  });

  it("is dropped by the primary after update-primary with a new token, so refresh sees it gone", async () => {
    const { secondary } = await connectedPair();
    const { id, outs } = await create(FILTER, { secondaryClusterId: secondary.outs.clusterId, mode: "deny", paths: ["keymgmt/"], connection: conn(A) });
    const next = await create(TOKEN, { secondaryId: "b2", connection: conn(A) });
    await call(SECONDARY, "update", [secondary.id, secondary.outs, await checked(SECONDARY, { token: next.outs.token, acknowledgeDataWipe: true, connection: conn(B) }, secondary.outs)]);
    expect(await call(FILTER, "read", [id, outs])).toEqual({ id: "", props: {} });
  });
});

describe("functions", () => {
  const mocks: pulumi.runtime.Mocks = { newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs };

  it("getReplicationStatus needs no token: a connection with only a url is enough", async () => {
    await connectedPair();
    const s = await replication.getReplicationStatus({}, { connection: { url: emu.clusters[B].secretsUrl } });
    expect(s).toMatchObject({ mode: "secondary", state: "stream-wals", secondaryId: "b", primaries: [expect.objectContaining({ connectionStatus: "connected" })] });
    const p = await replication.getReplicationStatus({}, { connection: { url: emu.clusters[A].secretsUrl } });
    expect(p).toMatchObject({ mode: "primary", knownSecondaries: ["b"], secondaries: [expect.objectContaining({ secondaryId: "b", clusterId: s.clusterId, connectionStatus: "connected" })] });
    expect(p.merkleRoot).toBe(s.merkleRoot);
    // A function that needs a token still says so.
    await expect(replication.getPrimaryDynamicFilter({ secondaryClusterId: s.clusterId }, { connection: { url: emu.clusters[A].secretsUrl } })).rejects.toThrow(/missing secrets service token/);
  });

  it("acting functions make no request during preview; the read-only ones run", async () => {
    await connectedPair();
    for (const c of emu.clusters) await control(c, "DELETE", "/requests");
    await pulumi.runtime.setMocks(mocks, "proj", "stack", true);
    try {
      const outputs = [
        replication.demotePrimaryOutput({}, { connection: conn(A) }),
        replication.promoteSecondaryOutput({ force: true }, { connection: conn(B) }),
        replication.updatePrimaryOutput({ token: "" }, { connection: conn(B) }),
        replication.revokeSecondaryOutput({ secondaryId: "b" }, { connection: conn(A) }),
        replication.generateSecondaryPublicKeyOutput({}, { connection: conn(B) }),
      ];
      for (const o of outputs) expect(await (o as unknown as { isKnown: Promise<boolean> }).isKnown).toBe(false);
      expect(await replication.demotePrimary({}, { connection: conn(A) })).toBeUndefined();
      expect(await logged(A)).toEqual([]);
      expect(await logged(B)).toEqual([]);
      const s = replication.getReplicationStatusOutput({}, { connection: conn(A) });
      expect(await new Promise((resolve) => s.apply((v) => resolve(v.mode)))).toBe("primary");
    } finally {
      await pulumi.runtime.setMocks(mocks, "proj", "stack", false);
    }
  });

  it("demote, promote, revoke, update-primary and the dynamic filters act on the named clusters", async () => {
    const { secondary } = await connectedPair();
    const clusterId = secondary.outs.clusterId as string;
    await create(FILTER, { secondaryClusterId: clusterId, mode: "deny", paths: ["keymgmt/"], connection: conn(A) });
    const dyn = { dynamicFilteredMounts: ["keymgmt/"], dynamicFilteredNamespaces: [] };
    expect(await replication.getPrimaryDynamicFilter({ secondaryClusterId: clusterId }, { connection: conn(A) })).toEqual(dyn);
    expect(await replication.getSecondaryDynamicFilter({ secondaryClusterId: clusterId }, { connection: conn(B) })).toEqual(dyn);

    expect(await replication.revokeSecondary({ secondaryId: "b" }, { connection: conn(A) })).toMatchObject({ mode: "primary", knownSecondaries: [] });
    const again = await create(TOKEN, { secondaryId: "b-again", connection: conn(A) });
    expect(await replication.updatePrimary({ token: again.outs.token as string }, { connection: conn(B) })).toMatchObject({ state: "stream-wals", secondaryId: "b-again" });

    expect(await replication.demotePrimary({}, { connection: conn(A) })).toMatchObject({ mode: "secondary", state: "idle" });
    expect(await replication.promoteSecondary({ primaryClusterAddr: "https://b:8201" }, { connection: conn(B) })).toMatchObject({ mode: "primary", primaryClusterAddr: "https://b:8201" });
    expect(await replication.updatePrimary({ token: "" }, { connection: conn(A) })).toMatchObject({ mode: "secondary", state: "idle", primaries: [] });
    await expect(replication.promoteSecondary({ force: true }, { connection: conn(A) })).rejects.toThrow(/^promoteSecondary: .*only one performance primary may be active/);
  });

  it("updatePrimary validates before any request: token and updatePrimaryAddrs are exclusive, one is needed", async () => {
    await expect(replication.updatePrimary({ token: "t", updatePrimaryAddrs: ["https://a:8201"] }, { connection: conn(B) }))
      .rejects.toThrow("updatePrimary: invalid input: updatePrimaryAddrs: cannot be given with token: give one of them");
    await expect(replication.updatePrimary({}, { connection: conn(B) })).rejects.toThrow('token: give token ("" forgets the past primary) or updatePrimaryAddrs');
    expect(await logged(B)).toEqual([]);
  });
});

describe("pulumi-svc-import on replicating clusters", () => {
  it("finds the primary's paths filters through the secondaries it knows, and leaves the modes of the clusters out", async () => {
    await connectedPair();
    const b = (await status(B)).cluster_id as string;
    expect((await raw(A, "POST", `sys/replication/performance/primary/paths-filter/${b}`, { mode: "deny", paths: ["transform/"] })).status).toBeLessThan(300);
    const onA = makeContext((k) => ({ "svc:secretsUrl": emu.clusters[A].secretsUrl, "svc:secretsToken": emu.clusters[A].secretsToken })[k]);
    const { found, skipped } = await walk(onA, { workspaces: [], mounts: {} }, () => {}, { runs: false, secrets: true });
    expect(found.filter((f) => f.kind === "secrets:ReplicationPathsFilter").map((f) => [f.id, f.props])).toEqual([
      [`sys/replication/performance/primary/paths-filter/${b}`, expect.objectContaining({ secondaryClusterId: b, mode: "deny", paths: ["transform/"] })],
    ]);
    expect(skipped.map((s) => s.kind)).toEqual(expect.arrayContaining(["secrets:ReplicationPerformancePrimary", "secrets:ReplicationPerformanceSecondary", "secrets:ReplicationSecondaryToken"]));
  });
});
