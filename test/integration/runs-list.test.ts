import { beforeEach, describe, expect, it } from "vitest";
import { listRuns, listRunsIterator } from "../../src/runs";
import { control, useEmulator } from "../support/emulator";
import { bulkRuns } from "./runs-support";

const { emu } = useEmulator();

interface Logged { method: string; path: string; query?: string | Record<string, string>; status: number }
const listCalls = async () =>
  (await control<{ requests: Logged[] }>(emu, "GET", "/requests")).requests.filter((r) => r.method === "GET" && r.path.endsWith("/runs"));
const queryOf = (r: Logged) => new URLSearchParams(typeof r.query === "string" ? r.query : Object.entries(r.query ?? {}).map(([k, v]) => `${k}=${v}`).join("&"));

let ids: { api: string[]; ui: string[]; vcs: string[] };

beforeEach(async () => {
  ids = {
    api: await bulkRuns(emu, { count: 25, status: "applied", source: "svc-api", message: "routine apply" }),
    ui: await bulkRuns(emu, { count: 12, status: "errored", source: "svc-ui", vcsUsername: "alice", commitSha: "abc123def", message: "broken change" }),
    vcs: await bulkRuns(emu, { count: 8, status: "planned_and_finished", source: "svc-configuration-version", operation: "plan_only", message: "nightly drift", vcsUsername: "bob", commitSha: "fedcba987" }),
  };
  await control(emu, "DELETE", "/requests");
});

const sorted = (xs: string[]) => [...xs].sort();

describe("listRuns", () => {
  it("collects every page", async () => {
    const runs = await listRuns({ workspaceId: emu.workspaceId, pageSize: 20 });
    expect(runs).toHaveLength(45);
    expect(sorted(runs.map((r) => r.id))).toEqual(sorted([...ids.api, ...ids.ui, ...ids.vcs]));
    expect(new Set(runs.map((r) => r.id)).size).toBe(45);
    const calls = await listCalls();
    expect(calls.map((c) => queryOf(c).get("page[number]"))).toEqual(["1", "2", "3"]);
    expect(calls.every((c) => queryOf(c).get("page[size]") === "20")).toBe(true);
  });

  it("filters by status, operation and source, each a list that matches any", async () => {
    const ws = emu.workspaceId;
    expect(sorted((await listRuns({ workspaceId: ws, status: ["errored"] })).map((r) => r.id))).toEqual(sorted(ids.ui));
    expect(await listRuns({ workspaceId: ws, status: ["errored", "planned_and_finished"], pageSize: 7 })).toHaveLength(20);
    expect(sorted((await listRuns({ workspaceId: ws, operation: ["plan_only"] })).map((r) => r.id))).toEqual(sorted(ids.vcs));
    expect(sorted((await listRuns({ workspaceId: ws, source: ["svc-ui", "svc-configuration-version"] })).map((r) => r.id))).toEqual(sorted([...ids.ui, ...ids.vcs]));
    expect(await listRuns({ workspaceId: ws, status: ["applied"], source: ["svc-ui"] })).toEqual([]);
    const sent = (await listCalls()).map(queryOf);
    expect(sent[0].get("filter[status]")).toBe("errored");
    expect(sent[1].get("filter[status]")).toBe("errored,planned_and_finished");
  });

  it("searches by user, commit and basic text", async () => {
    const ws = emu.workspaceId;
    expect(sorted((await listRuns({ workspaceId: ws, searchUser: "alice" })).map((r) => r.id))).toEqual(sorted(ids.ui));
    expect(sorted((await listRuns({ workspaceId: ws, searchCommit: "fedcba987" })).map((r) => r.id))).toEqual(sorted(ids.vcs));
    expect(sorted((await listRuns({ workspaceId: ws, searchBasic: "nightly" })).map((r) => r.id))).toEqual(sorted(ids.vcs));
    expect((await listRuns({ workspaceId: ws, searchBasic: ids.api[3] })).map((r) => r.id)).toEqual([ids.api[3]]);
    // search[basic] is ignored when search[user] is present.
    expect(sorted((await listRuns({ workspaceId: ws, searchUser: "alice", searchBasic: "nightly" })).map((r) => r.id))).toEqual(sorted(ids.ui));
  });

  it("stops at the limit without reading further pages", async () => {
    expect(await listRuns({ workspaceId: emu.workspaceId, pageSize: 10, limit: 5 })).toHaveLength(5);
    expect(await listCalls()).toHaveLength(1);
  });

  it("reports an unknown workspace as not found", async () => {
    await expect(listRuns({ workspaceId: "ws-missing" })).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("listRunsIterator", () => {
  it("yields every run, fetching a page only when the previous one is used up", async () => {
    const seen: string[] = [];
    for await (const run of listRunsIterator({ workspaceId: emu.workspaceId, pageSize: 10 })) {
      seen.push(run.id);
      if (seen.length === 15) expect(await listCalls()).toHaveLength(2);
    }
    expect(seen).toHaveLength(45);
    expect(await listCalls()).toHaveLength(5);
  });

  it("validates its arguments when iteration starts", async () => {
    const it = listRunsIterator({ workspaceId: "", pageSize: 0 });
    await expect(it.next()).rejects.toThrow(/listRuns: invalid input: workspaceId: must not be empty; pageSize: must be at least 1/);
  });
});
