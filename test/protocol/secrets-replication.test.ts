// Replication through the real dynamic-provider host, on two clusters reached only through each
// resource's connection: primary, token, secondary, filter, and back; no token in the provider text
// or the host's output.
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { hostChecked, serializedProvider, urn, useHosts } from "../support/protocol";

const PRIMARY = "secrets:ReplicationPerformancePrimary";
const TOKEN = "secrets:ReplicationSecondaryToken";
const SECONDARY = "secrets:ReplicationPerformanceSecondary";
const FILTER = "secrets:ReplicationPathsFilter";

// The stack config names no secrets server: every resource carries its connection.
const { emu, host } = useHosts({ host: (emu) => ({ "svc:runUrl": emu.runUrl, "svc:runToken": emu.tokens.runAdmin }) }, { clusters: 2 });

const conn = (i: number) => ({ url: emu.clusters[i]!.secretsUrl, token: emu.clusters[i]!.secretsToken });
const status = async (i: number) => {
  const res = await request(`${emu.clusters[i]!.secretsUrl}/sys/replication/performance/status`);
  return ((await res.body.json()) as { data: Record<string, unknown> }).data;
};

describe("replication through the real dynamic-provider host", () => {
  it("serializes each kind to a small text without tokens", async () => {
    for (const kind of [PRIMARY, TOKEN, SECONDARY, FILTER]) {
      const text = await serializedProvider(kind);
      expect(text).toContain(`"${kind}"`);
      expect(Buffer.byteLength(text)).toBeLessThan(6000);
      for (const c of emu.clusters) expect(text).not.toContain(c.secretsToken);
    }
  });

  it("refuses a secondary without acknowledgeDataWipe at check, naming the property", async () => {
    const r = await host.check(urn(SECONDARY, "b"), {}, { __provider: await serializedProvider(SECONDARY), token: "x".repeat(20), connection: conn(1) });
    expect(r.failures.map((f) => f.property)).toContain("acknowledgeDataWipe");
  });

  it("primary → token → secondary → filter, and back, with the token secret nowhere in the host's output", async () => {
    const p = await host.create(urn(PRIMARY, "a"), await hostChecked(host, PRIMARY, "a", { connection: conn(0) }));
    expect(p.outs.clusterId).toEqual(expect.any(String));
    const t = await host.create(urn(TOKEN, "b"), await hostChecked(host, TOKEN, "b", { secondaryId: "b", connection: conn(0) }));
    const token = t.outs.token as string;
    expect(token.length).toBeGreaterThan(10);
    const s = await host.create(urn(SECONDARY, "b"), await hostChecked(host, SECONDARY, "b", { token, acknowledgeDataWipe: true, connection: conn(1) }));
    expect((await status(1)).mode).toBe("secondary");
    expect((await status(0)).known_secondaries).toEqual(["b"]);
    const secondaryClusterId = (await status(1)).cluster_id as string;
    const fIn = await hostChecked(host, FILTER, "f", { secondaryClusterId, mode: "deny", paths: ["keymgmt/"], connection: conn(0) });
    const f = await host.create(urn(FILTER, "f"), fIn);
    expect(await host.diff(urn(FILTER, "f"), f.id, (await host.read(urn(FILTER, "f"), f.id, f.outs)).props, fIn)).toMatchObject({ changes: false });

    await host.delete(urn(FILTER, "f"), f.id, f.outs);
    await host.delete(urn(SECONDARY, "b"), s.id, s.outs);
    await host.delete(urn(TOKEN, "b"), t.id, t.outs);
    await host.delete(urn(PRIMARY, "a"), p.id, p.outs);
    expect((await status(1)).mode).toBe("disabled");
    for (const secret of [token, ...emu.clusters.map((c) => c.secretsToken)]) expect(host.stderr()).not.toContain(secret);
  });
});
