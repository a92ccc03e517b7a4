import { describe, expect, test } from "vitest";
import { readStateFile } from "../../src/emulator";
import { useStateFile } from "./helpers";
import { runsApi } from "./runs-helpers";

const state = useStateFile("emu-runs-");

describe("runs and configuration versions in the state file", () => {
  test("statuses, the lock, settings and configuration versions survive a restart", async () => {
    const first = await state.start();
    const a = runsApi(first);
    expect((await a.seed({ workspaces: [{ id: "ws-kept", name: "kept", costEstimation: true }], configurationVersions: [{ id: "cv-kept", workspaceId: "ws-kept", commitSha: "abc" }] })).status).toBe(200);
    const holder = await a.createId({}, { workspaceId: "ws-kept" });
    const waiting = await a.createId({}, { workspaceId: "ws-kept" });
    await a.advanceTo(holder, "cost_estimated");
    await first.close();

    const saved = readStateFile(state.path) as any;
    expect(Object.keys(saved.data.run.runs).sort()).toEqual([holder, waiting].sort());
    expect(saved.data.run.configurationVersions["cv-kept"]).toMatchObject({ workspaceId: "ws-kept", commitSha: "abc" });

    const second = await state.start();
    const b = runsApi(second);
    expect(await b.status(holder)).toBe("cost_estimated");
    expect((await b.advance(waiting)).status).toBe(409);
    expect((await b.action(holder, "apply")).status).toBe(202);
    await b.advanceTo(holder, "applied");
    expect((await b.advance(waiting)).status).toBe(200);
    const list = await b.list("", "runAdmin", "ws-kept");
    expect(list.json.data.map((r: { id: string }) => r.id)).toEqual([waiting, holder]);
    const third = await b.createId({}, { workspaceId: "ws-kept" });
    expect((await b.get(third)).json.data.relationships["configuration-version"].data.id).toBe("cv-kept");
  });
});
