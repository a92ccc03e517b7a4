import { beforeEach, describe, expect, test } from "vitest";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";
import { runsApi } from "./runs-helpers";

const { emu } = useEmulator();
const api = runsApi(emu);

async function bulk(body: Record<string, unknown>): Promise<string[]> {
  const res = await api.bulk({ workspaceId: emu.workspaceId, ...body });
  expect(res.status).toBe(201);
  return res.json.ids;
}

const ids = (res: { json: { data: { id: string }[] } }) => res.json.data.map((r) => r.id);
const enc = (s: string) => s.replace(/\[/g, "%5B").replace(/\]/g, "%5D");

describe("pagination", () => {
  test("20 per page by default, newest first, with meta and links", async () => {
    const created = await bulk({ count: 45, status: "applied" });
    const first = await api.list();
    expect(first.status).toBe(200);
    expect(ids(first)).toEqual(created.slice(-20).reverse());
    expect(first.json.meta.pagination).toEqual({ "current-page": 1, "prev-page": null, "next-page": 2, "total-pages": 3, "total-count": 45, "page-size": 20 });
    expect(first.json.links.next).toBe(`/api/v2/workspaces/${emu.workspaceId}/runs?page%5Bnumber%5D=2&page%5Bsize%5D=20`);
    expect(first.json.links.prev).toBeNull();
    const last = await call("GET", `${emu.url}${first.json.links.last}`, { headers: api.headers() });
    expect(ids(last)).toEqual(created.slice(0, 5).reverse());
    expect(last.json.meta.pagination).toMatchObject({ "current-page": 3, "prev-page": 2, "next-page": null });
  });

  test("walking every page with page[size] returns each run once", async () => {
    const created = await bulk({ count: 23, status: "planned_and_finished", operation: "plan_only" });
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) seen.push(...ids(await api.list(`?page[number]=${page}&page[size]=10`)));
    expect(seen).toEqual([...created].reverse());
    expect(ids(await api.list(enc("?page[number]=4&page[size]=10")))).toEqual([]);
  });

  test("page[size] is capped at 100; a bad page parameter → 422 naming it", async () => {
    await bulk({ count: 120, status: "errored" });
    const res = await api.list("?page[size]=500");
    expect(res.json.data).toHaveLength(100);
    expect(res.json.meta.pagination["page-size"]).toBe(100);
    const bad = await api.list("?page[number]=0");
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].source.parameter).toBe("page[number]");
  });

  test("links keep the filters", async () => {
    await bulk({ count: 3, status: "applied" });
    const res = await api.list(enc("?filter[status]=applied&page[size]=1"));
    expect(res.json.links.next).toContain("filter%5Bstatus%5D=applied");
    const next = await call("GET", `${emu.url}${res.json.links.next}`, { headers: api.headers() });
    expect(next.json.meta.pagination["total-count"]).toBe(3);
  });
});

describe("filters", () => {
  test("filter[status] matches any of a comma-separated list", async () => {
    const applied = await bulk({ count: 2, status: "applied" });
    const errored = await bulk({ count: 1, status: "errored" });
    await bulk({ count: 2, status: "discarded" });
    const res = await api.list(enc("?filter[status]=applied,errored"));
    expect(ids(res).sort()).toEqual([...applied, ...errored].sort());
  });

  test("filter[operation] derives the operation from the run", async () => {
    const planOnly = await bulk({ status: "planned_and_finished", operation: "plan_only" });
    const destroy = await bulk({ status: "applied", operation: "destroy" });
    const refresh = await bulk({ status: "applied", operation: "refresh_only" });
    const empty = await bulk({ status: "applied", operation: "empty_apply" });
    const normal = await bulk({ status: "applied" });
    const viaApi = await api.createId({ "is-destroy": true });
    expect(ids(await api.list("?filter[operation]=plan_only"))).toEqual(planOnly);
    expect(ids(await api.list("?filter[operation]=destroy"))).toEqual([viaApi, ...destroy]);
    expect(ids(await api.list("?filter[operation]=refresh_only,empty_apply"))).toEqual([...empty, ...refresh]);
    expect(ids(await api.list("?filter[operation]=plan_and_apply"))).toEqual(normal);
  });

  test("filter[source] and filters combined (all must match)", async () => {
    const ui = await bulk({ count: 2, status: "applied", source: "svc-ui" });
    await bulk({ count: 2, status: "errored", source: "svc-ui" });
    const vcs = await bulk({ status: "applied", source: "svc-configuration-version" });
    expect(ids(await api.list("?filter[source]=svc-ui&filter[status]=applied")).sort()).toEqual([...ui].sort());
    expect(ids(await api.list("?filter[source]=svc-configuration-version"))).toEqual(vcs);
  });

  test.each(["filter[status]=done", "filter[operation]=apply", "filter[source]=svc-cli"])("an unknown value (%s) → 422 naming the parameter", async (q) => {
    const res = await api.list(`?${q}`);
    expect(res.status).toBe(422);
    expect(res.json.errors[0].source.parameter).toBe(q.split("=")[0]);
  });
});

describe("search", () => {
  beforeEach(async () => {
    await api.seed({ users: [{ id: "usr-carol", username: "carol" }] });
  });

  test("search[user] matches the version-control username (API runs: the creator's username)", async () => {
    const carol = await bulk({ count: 2, status: "applied", createdBy: "usr-carol" });
    await bulk({ status: "applied", vcsUsername: "dave" });
    const member = await api.createId({}, { who: "runMember" });
    expect(ids(await api.list("?search[user]=carol")).sort()).toEqual([...carol].sort());
    expect(ids(await api.list("?search[user]=member"))).toEqual([member]);
    expect(ids(await api.list("?search[user]=car"))).toEqual([]);
  });

  test("search[commit] matches the commit sha (a prefix is enough)", async () => {
    const [sha] = await bulk({ status: "applied", commitSha: "9f8e7d6c5b4a" });
    await bulk({ status: "applied", commitSha: "0000000" });
    expect(ids(await api.list("?search[commit]=9f8e7d6c5b4a"))).toEqual([sha]);
    expect(ids(await api.list("?search[commit]=9f8e"))).toEqual([sha]);
  });

  test("search[basic] matches username, commit, run id and message", async () => {
    const [byUser] = await bulk({ status: "applied", vcsUsername: "needle-user" });
    const [byCommit] = await bulk({ status: "applied", commitSha: "abcneedle" });
    const [byMessage] = await bulk({ status: "applied", message: "a needle in the message" });
    const [other] = await bulk({ status: "applied" });
    expect(ids(await api.list("?search[basic]=needle")).sort()).toEqual([byUser, byCommit, byMessage].sort());
    expect(ids(await api.list(`?search[basic]=${other.slice(4)}`))).toEqual([other]);
  });

  test("search[basic] is ignored when search[user] or search[commit] is present", async () => {
    const [carol] = await bulk({ status: "applied", createdBy: "usr-carol", message: "plain" });
    await bulk({ status: "applied", message: "carol's favourite" });
    expect(ids(await api.list("?search[user]=carol&search[basic]=nomatch"))).toEqual([carol]);
    const [sha] = await bulk({ status: "applied", commitSha: "cafe01" });
    expect(ids(await api.list("?search[commit]=cafe01&search[basic]=nomatch"))).toEqual([sha]);
    expect(ids(await api.list("?search[basic]=nomatch"))).toEqual([]);
  });
});

describe("access and include", () => {
  test("404 for an unknown workspace; readable by members, teams and the organization token", async () => {
    expect((await api.list("", "runAdmin", "ws-missing")).status).toBe(404);
    for (const who of ["runMember", "runTeam", "runOrganization"] as const) expect((await api.list("", who)).status).toBe(200);
  });

  test("include works on the list too, each resource once", async () => {
    await api.createId();
    await api.createId();
    const res = await api.list("?include=configuration_version,created_by");
    expect(res.json.included.map((r: { type: string; id: string }) => `${r.type}/${r.id}`).sort()).toEqual(["configuration-versions/cv-example00000001", "users/usr-admin000000001"]);
    expect((await api.list("?include=nope")).status).toBe(400);
  });
});

describe("bulk control endpoint", () => {
  test("pending bulk runs queue behind one lock; invalid bodies → 400", async () => {
    const [first, second] = await bulk({ count: 2 });
    expect((await api.advance(first)).status).toBe(200);
    expect((await api.advance(second)).status).toBe(409);
    for (const body of [{ workspaceId: "ws-missing" }, { count: 0 }, { status: "planning" }, { createdBy: "usr-nobody" }, { operation: "x" }]) {
      expect((await api.bulk({ workspaceId: emu.workspaceId, ...body })).status).toBe(400);
    }
  });

  test("5,000 runs in one workspace list quickly enough to page through the newest and the oldest", async () => {
    await bulk({ count: 4990, status: "applied" });
    const newest = await bulk({ count: 10, status: "errored" });
    const first = await api.list("?page[size]=100");
    expect(first.json.meta.pagination["total-count"]).toBe(5000);
    expect(ids(first).slice(0, 10)).toEqual([...newest].reverse());
    const last = await api.list("?page[size]=100&page[number]=50");
    expect(last.json.data).toHaveLength(100);
    expect(ids(await api.list("?filter[status]=errored"))).toEqual([...newest].reverse());
  });
});
