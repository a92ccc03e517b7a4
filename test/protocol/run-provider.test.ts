import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PartialFailureError } from "../../src/engine/host";
import { control, runApi } from "../support/emulator";
import { serializedProvider, urn, useHosts } from "../support/protocol";

const KIND = "runs:Run";
const { emu, host } = useHosts({ host: (emu) => ({ "svc:runUrl": emu.runUrl, "svc:runToken": emu.tokens.runAdmin }) });
let text: string;
const u = (name: string) => urn(KIND, name);

const runStatus = async (id: string): Promise<Record<string, any>> => (await runApi(emu, "GET", `/runs/${id}`)).body.data.attributes;

beforeAll(async () => {
  text = await serializedProvider(KIND);
});

beforeEach(async () => {
  await control(emu, "POST", "/reset");
  await control(emu, "PUT", "/clock", { autoAdvanceMs: 0 });
});

const news = (extra: Record<string, unknown> = {}) => ({ __provider: text, workspaceId: emu.workspaceId, message: "protocol", pollIntervalSeconds: 0.02, triggers: { build: "1" }, ...extra });

describe("Run through the real dynamic-provider host", () => {
  it("serializes to a small capture-free text under the runs:Run type token", () => {
    expect(text).toContain('"runs:Run"');
    expect(text).toContain('require("pulumi-svc/runtime")');
    expect(Buffer.byteLength(text)).toBeLessThan(6000);
    for (const t of Object.values(emu.tokens)) expect(text).not.toContain(t);
  });

  it("check rejects mutually exclusive attributes before any request", async () => {
    await control(emu, "DELETE", "/requests");
    const r = await host.check(u("bad"), {}, news({ isDestroy: true, refreshOnly: true, toolVersion: "1.9.0" }));
    expect(r.failures).toEqual([
      { property: "refreshOnly", reason: expect.stringMatching(/cannot be combined with isDestroy/) },
      { property: "toolVersion", reason: "is only valid for plan-only runs (set planOnly: true)" },
    ]);
    expect((await control<{ requests: unknown[] }>(emu, "GET", "/requests")).requests).toEqual([]);
  });

  it("creates a run, waits for it and applies it when confirmable; read, diff and delete follow", async () => {
    await control(emu, "PUT", "/clock", { autoAdvanceMs: 20 });
    const { inputs, failures } = await host.check(u("deploy"), {}, news({ waitFor: "completed", applyWhenConfirmable: true, timeoutSeconds: 30 }));
    expect(failures).toEqual([]);
    const { id, outs } = await host.create(u("deploy"), inputs);
    expect(id).toMatch(/^run-/);
    expect(outs).toMatchObject({ runId: id, status: "applied", hasChanges: true, statusTimestamps: { appliedAt: expect.any(String) }, __provider: text });
    expect(await host.read(u("deploy"), id, outs)).toMatchObject({ id, props: { status: "applied", triggers: { build: "1" } } });

    expect(await host.diff(u("deploy"), id, outs, { ...inputs, __provider: `${text}\n// another version` })).toMatchObject({ changes: false });
    expect(await host.diff(u("deploy"), id, outs, { ...inputs, waitFor: "none", timeoutSeconds: 5 })).toMatchObject({ changes: false });
    expect(await host.diff(u("deploy"), id, outs, { ...inputs, triggers: { build: "2" } })).toEqual({ changes: true, replaces: ["triggers"], deleteBeforeReplace: true });
    expect(await host.diff(u("deploy"), id, outs, { ...inputs, workspaceId: "ws-other" })).toEqual({ changes: true, replaces: ["workspaceId"], deleteBeforeReplace: false });

    await control(emu, "DELETE", "/requests");
    await host.delete(u("deploy"), id, outs); // applied: nothing to stop
    const writes = (await control<{ requests: { method: string }[] }>(emu, "GET", "/requests")).requests.filter((r) => r.method !== "GET");
    expect(writes).toEqual([]);
  });

  it("delete discards a run that is still pending", async () => {
    const { inputs } = await host.check(u("queued"), {}, news());
    const { id, outs } = await host.create(u("queued"), inputs);
    expect(outs.status).toBe("pending");
    await host.delete(u("queued"), id, outs);
    expect((await runStatus(id)).status).toBe("discarded");
  });

  it("a timeout is a partial failure that keeps the run (with its provider) and names it; the run is discarded", async () => {
    const { inputs } = await host.check(u("slow"), {}, news({ waitFor: "completed", timeoutSeconds: 0.3 }));
    const err = await host.create(u("slow"), inputs).catch((e) => e);
    expect(err).toBeInstanceOf(PartialFailureError);
    expect(err.id).toMatch(/^run-/);
    expect(err.message).toContain(`run ${err.id} did not reach completed within 0.3 s (it is pending); it was discarded`);
    expect(err.properties).toMatchObject({ runId: err.id, status: "discarded", __provider: text, waitFor: "completed" });
    expect((await runStatus(err.id)).status).toBe("discarded");
    // The engine keeps it and can refresh and delete it through the same properties.
    expect(await host.read(u("slow"), err.id, err.properties)).toMatchObject({ id: err.id, props: { status: "discarded" } });
    await host.delete(u("slow"), err.id, err.properties);
    for (const t of Object.values(emu.tokens)) expect(host.stderr()).not.toContain(t);
  });
});
