// The replication kinds on field records (issue 23): a misspelt property is refused at check with
// the nearest known name, the declared lists are those the kinds had before the move (so state and
// diffs are unchanged), every secret the records declare is redacted, and the status is read
// through its record.
import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { redact } from "../../src/http/redact";
import { updatePrimary } from "../../src/secrets/replication";
import { checkFailures, kindLists, NO_LISTS as none } from "../support/calls";
import { useEnv } from "../support/env";

// check and function calls read the service's settings from the environment; nothing here reaches a server.
useEnv({ SVC_SECRETS_URL: "http://127.0.0.1:9/v1", SVC_SECRETS_TOKEN: "unit-test-secrets-token" });

describe("a misspelt property is refused at check, naming the nearest one", () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ["secrets:ReplicationPerformancePrimary", {}, "disableOnDelet", "disableOnDelete"],
    ["secrets:ReplicationSecondaryToken", { secondaryId: "west" }, "secondaryID", "secondaryId"],
    ["secrets:ReplicationPerformanceSecondary", { token: "activation-token", acknowledgeDataWipe: true }, "primaryApiAdr", "primaryApiAddr"],
    ["secrets:ReplicationPathsFilter", { secondaryClusterId: "c1", paths: ["transform/"] }, "secondaryActivaton", "secondaryActivation"],
  ];
  it.each(cases)("%s", async (kind, valid, misspelt, meant) => {
    expect(await checkFailures(kind, valid)).toEqual([]);
    expect(await checkFailures(kind, { ...valid, [misspelt]: 1 })).toEqual([{ property: misspelt, reason: `unknown property; did you mean ${meant}?` }]);
  });

  it("updatePrimary refuses a misspelt argument the same way", async () => {
    await expect(updatePrimary({ token: "", caFlie: "/ca.pem" } as never)).rejects.toThrow(/caFlie.*did you mean caFile\?/);
  });
});

describe("the lists derived from the records are the kinds' lists before the move", () => {
  it("replication", async () => {
    expect(await kindLists("secrets:ReplicationPerformancePrimary")).toEqual({ ...none, defaults: { disableOnDelete: false }, outputs: ["clusterId"] });
    expect(await kindLists("secrets:ReplicationSecondaryToken")).toEqual({
      ...none, immutable: ["secondaryId", "secondaryPublicKey", "ttl"], identity: ["secondaryId"], secrets: ["token"],
      outputs: ["creationTime", "token", "wrappedAccessor"],
    });
    // acknowledgeDataWipe is no longer listed as local (a local input may be left out, and it may
    // not); it can only be true, so it never differs between state and the program either way.
    expect(await kindLists("secrets:ReplicationPerformanceSecondary")).toEqual({
      ...none, secrets: ["token"], writeOnly: ["token"], outputs: ["activation", "clusterId", "primaryClusterAddr", "secondaryId"],
    });
    expect(await kindLists("secrets:ReplicationPathsFilter")).toEqual({
      ...none, defaults: { mode: "allow", paths: [] }, sets: ["paths"], immutable: ["secondaryClusterId"], identity: ["secondaryClusterId"], local: ["adopt"],
    });
  });
});

describe("secrets declared in the records are redacted from then on", () => {
  const redacted = (value: string) => expect(redact(`server said: ${value}`)).toBe("server said: [REDACTED]");

  it("the secondary's activation token, and the token a SecondaryToken holds in state", async () => {
    const activation = "activation-token-for-west-1";
    await checkFailures("secrets:ReplicationPerformanceSecondary", { token: activation, acknowledgeDataWipe: true });
    redacted(activation);
    // A SecondaryToken's read makes no request: the token in its state is registered on the way through.
    const issued = "issued-secondary-token-2";
    await call("secrets:ReplicationSecondaryToken", "read", ["west", { secondaryId: "west", token: issued }]);
    redacted(issued);
  });

  it("updatePrimary's token, before any request (even when the arguments are refused)", async () => {
    const token = "Up7Rq2Zt9Wm4Kx8L";
    await expect(updatePrimary({ token, updatePrimaryAddrs: ["https://east:8201"] })).rejects.toThrow(/updatePrimaryAddrs/);
    redacted(token);
  });
});

describe("a secondary's values sent with its token", () => {
  it("a change of one without a new token is refused before any request, naming every such input", async () => {
    const olds = { token: "activation-token-3", acknowledgeDataWipe: true, caFile: "/etc/ca.pem", clusterId: "c", activation: 1 };
    const err = await call("secrets:ReplicationPerformanceSecondary", "update", ["sys/replication/performance/secondary", olds, { ...olds, caFile: "/etc/other.pem" }])
      .then(() => undefined, (e: Error) => e);
    expect(err?.message).toMatch(/primaryApiAddr, caFile and caPath are sent with a token: issue a new SecondaryToken for this secondary to change them/);
  });
});

describe("the replication status, read through its record", () => {
  it("reads snake_case members, and blanks for what a status leaves out or sends malformed", async () => {
    const { statusOf } = await import("../../src/secrets/replication/status");
    expect(statusOf({ mode: "", last_wal: null, secondaries: [null, { secondary_id: "west", node_id: 7 }], known_primary_cluster_addrs: "x" })).toEqual({
      mode: "disabled", clusterId: "", state: "", primaryClusterAddr: "", knownSecondaries: [],
      secondaries: [
        { secondaryId: "", clusterId: "", nodeId: "", apiAddress: "", clusterAddress: "", connectionStatus: "", lastHeartbeat: "" },
        { secondaryId: "west", clusterId: "", nodeId: "", apiAddress: "", clusterAddress: "", connectionStatus: "", lastHeartbeat: "" },
      ],
      lastWal: 0, merkleRoot: "", corruptedMerkleTree: false, lastCorruptionCheckEpoch: "", knownPrimaryClusterAddrs: [], lastRemoteWal: 0,
      primaries: [], secondaryId: "",
    });
  });
});
