import { describe, expect, test } from "vitest";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";
import { runsApi } from "./runs-helpers";

const { emu } = useEmulator();
const api = runsApi(emu);

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("POST /runs defaults", () => {
  test("an empty attributes object gets every default of the seed", async () => {
    const res = await api.create();
    expect(res.status).toBe(201);
    expect(res.headers["content-type"]).toBe("application/vnd.api+json");
    const { id, type, attributes: a, relationships: r, links } = res.json.data;
    expect(id).toMatch(/^run-[A-Za-z0-9]{16}$/);
    expect(type).toBe("runs");
    expect(links).toEqual({ self: `/api/v2/runs/${id}` });
    expect(a).toMatchObject({
      status: "pending",
      source: "svc-api",
      message: "Queued manually via the API",
      refresh: true,
      "refresh-only": false,
      "is-destroy": false,
      "auto-apply": false,
      "plan-only": false,
      "allow-empty-apply": false,
      "allow-config-generation": false,
      "has-changes": false,
      variables: [],
      "target-addrs": null,
      "replace-addrs": null,
      "canceled-at": null,
      "trigger-reason": "manual",
    });
    expect(a["created-at"]).toMatch(ISO_MS);
    expect(a["status-timestamps"]).toEqual({ "plan-queueable-at": expect.stringMatching(ISO_MS) });
    expect(a).not.toHaveProperty("force_cancel_available_at");
    expect(a.actions).toEqual({ "is-cancelable": false, "is-confirmable": false, "is-discardable": true, "is-force-cancelable": false });
    expect(r["configuration-version"].data).toEqual({ id: "cv-example00000001", type: "configuration-versions" });
    expect(r.workspace.data).toEqual({ id: emu.workspaceId, type: "workspaces" });
    expect(r.plan.data).toEqual({ id: expect.stringMatching(/^plan-/), type: "plans" });
    expect(r.apply.data).toEqual({ id: expect.stringMatching(/^apply-/), type: "applies" });
    expect(r["created-by"].data).toEqual({ id: "usr-admin000000001", type: "users" });
    for (const name of ["comments", "cost-estimate", "input-state-version", "run-events", "policy-checks", "workspace-run-alerts"]) expect(r).toHaveProperty(name);
    expect(r).not.toHaveProperty("task-stages");
  });

  test("every attribute given is kept", async () => {
    const attributes = {
      message: "deploy 42",
      refresh: false,
      "is-destroy": true,
      "auto-apply": true,
      "allow-empty-apply": true,
      "allow-config-generation": true,
      "target-addrs": ["random_pet.a"],
      "replace-addrs": ["random_pet.b"],
      variables: [{ key: "region", value: '"eu-west-1"' }],
    };
    const res = await api.create(attributes);
    expect(res.status).toBe(201);
    expect(res.json.data.attributes).toMatchObject(attributes);
  });

  test("auto-apply defaults to the workspace's setting", async () => {
    const res = await api.create({}, { workspaceId: "ws-autoapply000001" });
    expect(res.status).toBe(201);
    expect(res.json.data.attributes["auto-apply"]).toBe(true);
    expect(res.json.data.relationships["configuration-version"].data.id).toBe("cv-autoapply000001");
  });

  test("plan-only comes from a speculative configuration version; tool-version is then allowed", async () => {
    await api.seed({ configurationVersions: [{ id: "cv-spec", workspaceId: emu.workspaceId, speculative: true }] });
    const res = await api.create({ "tool-version": "1.9.0" });
    expect(res.status).toBe(201);
    expect(res.json.data.attributes["plan-only"]).toBe(true);
    expect(res.json.data.attributes["tool-version"]).toBe("1.9.0");
    expect(res.json.data.relationships["configuration-version"].data.id).toBe("cv-spec");
  });

  test("the latest configuration version is the one most recently used in the workspace (promotion)", async () => {
    await api.seed({ workspaces: [{ id: "ws-staging", name: "staging" }], configurationVersions: [{ id: "cv-good", workspaceId: "ws-staging" }] });
    const promoted = await api.create({}, { configurationVersionId: "cv-good" });
    expect(promoted.status).toBe(201);
    expect(promoted.json.data.relationships["configuration-version"].data.id).toBe("cv-good");
    const next = await api.create();
    expect(next.json.data.relationships["configuration-version"].data.id).toBe("cv-good");
  });

  test("created-by is the token's user; a team token has no user", async () => {
    const member = await api.create({}, { who: "runMember" });
    expect(member.status).toBe(201);
    expect(member.json.data.relationships["created-by"].data).toEqual({ id: "usr-member00000001", type: "users" });
    const team = await api.create({}, { who: "runTeam" });
    expect(team.status).toBe(201);
    expect(team.json.data.relationships["created-by"].data).toBeNull();
  });
});

describe("POST /runs rules", () => {
  test("is-destroy with refresh-only → 422 naming refresh-only", async () => {
    const res = await api.create({ "is-destroy": true, "refresh-only": true });
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual([expect.objectContaining({ status: "422", source: { pointer: "/data/attributes/refresh-only" }, detail: expect.stringContaining("mutually exclusive") })]);
  });

  test("either one alone is fine", async () => {
    expect((await api.create({ "is-destroy": true })).status).toBe(201);
    expect((await api.create({ "refresh-only": true })).status).toBe(201);
  });

  test("tool-version on a run that is not plan-only → 422", async () => {
    const res = await api.create({ "tool-version": "1.9.0" });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].source.pointer).toBe("/data/attributes/tool-version");
    expect((await api.create({ "tool-version": "1.9.0", "plan-only": true })).status).toBe(201);
  });

  test("plan-only false on a speculative version → 422", async () => {
    await api.seed({ configurationVersions: [{ id: "cv-spec", workspaceId: emu.workspaceId, speculative: true }] });
    const res = await api.create({ "plan-only": false });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].source.pointer).toBe("/data/attributes/plan-only");
  });

  test.each([
    ["no data", { nope: 1 }, "/data"],
    ["wrong type", { data: { type: "run", relationships: { workspace: { data: { type: "workspaces", id: "ws-example00000001" } } } } }, "/data/type"],
    ["no workspace", { data: { type: "runs", relationships: {} } }, "/data/relationships/workspace/data/id"],
    ["no relationships", { data: { type: "runs" } }, "/data/relationships"],
    ["workspace of the wrong type", { data: { type: "runs", relationships: { workspace: { data: { type: "users", id: "ws-example00000001" } } } } }, "/data/relationships/workspace/data/type"],
  ])("%s → 422 with pointer %s", async (_name, body, pointer) => {
    const res = await call("POST", `${emu.runUrl}/runs`, { headers: api.headers(), body });
    expect(res.status).toBe(422);
    expect(res.json.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toContain(pointer);
  });

  test.each([
    ["message", 5],
    ["refresh", "yes"],
    ["auto-apply", 1],
    ["plan-only", "true"],
    ["target-addrs", "a.b"],
    ["variables", { key: "a", value: "b" }],
    ["tool-version", "latest"],
  ])("%s of the wrong type → 422 naming it", async (name, value) => {
    const res = await api.create({ [name]: value });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].source.pointer).toBe(`/data/attributes/${name}`);
  });

  test("each bad variable is named by its index", async () => {
    const res = await api.create({ variables: [{ key: "ok", value: "1" }, { key: "", value: "1" }, { key: "x", value: 2 }] });
    expect(res.status).toBe(422);
    expect(res.json.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toEqual(["/data/attributes/variables/1/key", "/data/attributes/variables/2/value"]);
  });

  test("malformed JSON → 422", async () => {
    const res = await call("POST", `${emu.runUrl}/runs`, { headers: api.headers(), raw: "{" });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].status).toBe("422");
  });

  test("an unknown workspace → 404; an unknown configuration version → 404", async () => {
    const ws = await api.create({}, { workspaceId: "ws-missing" });
    expect(ws.status).toBe(404);
    expect(ws.json.errors[0].status).toBe("404");
    expect((await api.create({}, { configurationVersionId: "cv-missing" })).status).toBe(404);
  });

  test("a seeded workspace of another organization takes runs from users (users belong to every organization)", async () => {
    await api.seed({ workspaces: [{ id: "ws-other", name: "other", organization: "other-org" }], configurationVersions: [{ workspaceId: "ws-other" }] });
    expect((await api.create({}, { workspaceId: "ws-other" })).status).toBe(201);
    expect((await api.create({}, { workspaceId: "ws-other", who: "runOrganization" })).status).toBe(403);
  });

  test("a workspace without any configuration version → 422 naming the relationship", async () => {
    await api.seed({ workspaces: [{ id: "ws-empty", name: "empty" }] });
    const res = await api.create({}, { workspaceId: "ws-empty" });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].source.pointer).toBe("/data/relationships/configuration-version/data/id");
  });

  test("an organization token is refused with 403 and creates nothing", async () => {
    const res = await api.create({}, { who: "runOrganization" });
    expect(res.status).toBe(403);
    expect(res.json.errors[0].detail).toContain("organization tokens");
    expect((await api.list()).json.meta.pagination["total-count"]).toBe(0);
  });

  test.each(["runAdmin", "runMember", "runTeam"] as const)("%s may queue plans", async (who) => {
    expect((await api.create({}, { who })).status).toBe(201);
  });
});

describe("GET /runs/:id", () => {
  test("carries task-stages, and 404 for an unknown run", async () => {
    const id = await api.createId();
    const res = await api.get(id);
    expect(res.status).toBe(200);
    expect(res.json.data.relationships["task-stages"]).toEqual({ data: [] });
    expect((await api.get("run-missing")).status).toBe(404);
  });

  test("readable with an organization token of the workspace's organization, not another's", async () => {
    const id = await api.createId();
    expect((await api.get(id, "runOrganization")).status).toBe(200);
    await api.seed({ workspaces: [{ id: "ws-other", name: "other", organization: "other-org" }], configurationVersions: [{ workspaceId: "ws-other" }] });
    const other = await api.createId({}, { workspaceId: "ws-other" });
    expect((await api.get(other, "runOrganization")).status).toBe(404);
  });

  test("permissions follow the caller", async () => {
    const id = await api.createId();
    const perms = async (who: Parameters<typeof api.get>[1]) => (await api.get(id, who)).json.data.attributes.permissions;
    expect(await perms("runAdmin")).toEqual({
      "can-apply": true,
      "can-cancel": true,
      "can-comment": true,
      "can-discard": true,
      "can-force-execute": true,
      "can-force-cancel": true,
      "can-override-policy-check": true,
    });
    expect(await perms("runTeam")).toMatchObject({ "can-apply": true, "can-discard": true, "can-force-cancel": false, "can-override-policy-check": false });
    expect(await perms("runMember")).toMatchObject({ "can-apply": false, "can-cancel": false, "can-comment": true, "can-force-cancel": false });
    expect(Object.values(await perms("runOrganization")).every((v) => v === false)).toBe(true);
  });

  test("include returns the related resources", async () => {
    await api.seed({ configurationVersions: [{ id: "cv-git", workspaceId: emu.workspaceId, commitSha: "abc123", branch: "main", senderUsername: "carol" }] });
    const id = await api.createId();
    const res = await api.get(id, "runAdmin", "?include=plan,apply,created_by,cost_estimate,configuration_version.ingress_attributes");
    expect(res.status).toBe(200);
    const byType = Object.fromEntries(res.json.included.map((r: { type: string }) => [r.type, r]));
    expect(Object.keys(byType).sort()).toEqual(["applies", "configuration-versions", "ingress-attributes", "plans", "users"]);
    expect(byType.plans.id).toBe(res.json.data.relationships.plan.data.id);
    expect(byType.plans.attributes.status).toBe("pending");
    expect(byType.applies.id).toBe(res.json.data.relationships.apply.data.id);
    expect(byType.users).toMatchObject({ id: "usr-admin000000001", attributes: { username: "admin" } });
    expect(byType["configuration-versions"]).toMatchObject({ id: "cv-git", relationships: { "ingress-attributes": { data: { id: byType["ingress-attributes"].id } } } });
    expect(byType["ingress-attributes"].attributes).toEqual({ "commit-sha": "abc123", branch: "main", "sender-username": "carol" });
  });

  test("include=cost_estimate returns the estimate when the workspace estimates costs", async () => {
    await api.seed({ workspaces: [{ id: "ws-cost", name: "cost", costEstimation: true }], configurationVersions: [{ workspaceId: "ws-cost" }] });
    const id = await api.createId({}, { workspaceId: "ws-cost" });
    const res = await api.get(id, "runAdmin", "?include=cost_estimate");
    expect(res.json.included).toEqual([expect.objectContaining({ id: res.json.data.relationships["cost-estimate"].data.id, type: "cost-estimates" })]);
  });

  test("an unknown include → 400 naming the parameter", async () => {
    const id = await api.createId();
    const res = await api.get(id, "runAdmin", "?include=plan,workspace");
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toMatchObject({ status: "400", source: { parameter: "include" } });
  });
});
