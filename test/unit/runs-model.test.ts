import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { UNKNOWN } from "../../src/core/unknown";
import { applyRun, createRun, forceExecuteRun, getRun, listRuns, waitForRun } from "../../src/runs";
import { allowedActions } from "../../src/runs/runActions";
import { createDocument, runCreateSet } from "../../src/runs/runAttributes";
import { listQuery, runDetailsSet, runFromResource, type RunDetails } from "../../src/runs/runDetails";
import { isTerminal, planFinished } from "../../src/runs/runVocabulary";

const KIND = "runs:Run";
type Props = Record<string, unknown>;
const check = async (news: Props) => (await call(KIND, "check", [{}, news])) as { inputs: Props; failures: { property: string; reason: string }[] };
const diff = async (olds: Props, news: Props) => (await call(KIND, "diff", ["run-1", olds, news])) as { changes: boolean; replaces: string[]; deleteBeforeReplace: boolean };

describe("Run check", () => {
  // check fails a resource whose service is not configured; these checks make no request.
  const saved = { url: process.env.SVC_RUN_URL, token: process.env.SVC_RUN_TOKEN };
  beforeAll(() => { process.env.SVC_RUN_URL = "http://127.0.0.1:9/api/v2"; process.env.SVC_RUN_TOKEN = "unit-token"; });
  afterAll(() => {
    if (saved.url === undefined) delete process.env.SVC_RUN_URL; else process.env.SVC_RUN_URL = saved.url;
    if (saved.token === undefined) delete process.env.SVC_RUN_TOKEN; else process.env.SVC_RUN_TOKEN = saved.token;
  });

  it("fills in the local defaults and accepts every create attribute", async () => {
    const { inputs, failures } = await check({
      workspaceId: "ws-1", configurationVersionId: "cv-1", message: "m", isDestroy: true, refresh: false, planOnly: true,
      autoApply: false, allowEmptyApply: true, allowConfigGeneration: true, targetAddrs: ["b.x", "a.x"], replaceAddrs: ["c.x"],
      variables: [{ key: "region", value: "\"eu\"" }], toolVersion: "1.9.0", triggers: { release: "1" },
    });
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({ waitFor: "none", applyWhenConfirmable: false, timeoutSeconds: 1800, targetAddrs: ["a.x", "b.x"] });
  });

  it("refuses isDestroy with refreshOnly, naming refreshOnly", async () => {
    const { failures } = await check({ workspaceId: "ws-1", isDestroy: true, refreshOnly: true });
    expect(failures).toEqual([{ property: "refreshOnly", reason: expect.stringMatching(/cannot be combined with isDestroy/) }]);
    expect((await check({ workspaceId: "ws-1", isDestroy: true, refreshOnly: false })).failures).toEqual([]);
  });

  it("refuses toolVersion unless planOnly is true", async () => {
    expect((await check({ workspaceId: "ws-1", toolVersion: "1.9.0" })).failures)
      .toEqual([{ property: "toolVersion", reason: "is only valid for plan-only runs (set planOnly: true)" }]);
    expect((await check({ workspaceId: "ws-1", toolVersion: "1.9.0", planOnly: false })).failures).toHaveLength(1);
    expect((await check({ workspaceId: "ws-1", toolVersion: "1.9.0", planOnly: true })).failures).toEqual([]);
  });

  it("refuses duplicate variable keys, an empty workspace, a bad waitFor and applying a plan-only run", async () => {
    const { failures } = await check({
      workspaceId: "", waitFor: "forever", planOnly: true, applyWhenConfirmable: true, timeoutSeconds: 0,
      variables: [{ key: "a", value: "1" }, { key: "a", value: "2" }],
    });
    const props = failures.map((f) => f.property).sort();
    // Every failure in one pass: the cross-field rules run even when fields already failed.
    expect(props).toEqual(["applyWhenConfirmable", "timeoutSeconds", "variables[1].key", "waitFor", "workspaceId"]);
    const second = await check({ workspaceId: "ws-1", planOnly: true, applyWhenConfirmable: true, variables: [{ key: "a", value: "1" }, { key: "a", value: "2" }] });
    expect(second.failures.map((f) => f.property).sort()).toEqual(["applyWhenConfirmable", "variables[1].key"]);
  });

  it("skips values that are unknown during preview, even booleans", async () => {
    expect((await check({ workspaceId: UNKNOWN, isDestroy: UNKNOWN, refreshOnly: true, toolVersion: "1", planOnly: UNKNOWN })).failures).toEqual([]);
  });
});

describe("Run diff", () => {
  const olds = { workspaceId: "ws-1", message: "m", triggers: { release: "1" }, waitFor: "none", applyWhenConfirmable: false, timeoutSeconds: 1800, runId: "run-1", status: "applied" };

  it("queues a new run (replace, old one stopped first) when triggers change", async () => {
    expect(await diff(olds, { ...olds, triggers: { release: "2" } })).toEqual({ changes: true, replaces: ["triggers"], deleteBeforeReplace: true });
  });

  it("replaces on any create attribute, creating first when the workspace changes", async () => {
    expect(await diff(olds, { ...olds, message: "other" })).toMatchObject({ replaces: ["message"], deleteBeforeReplace: true });
    expect(await diff(olds, { ...olds, isDestroy: true })).toMatchObject({ replaces: ["isDestroy"] });
    expect(await diff(olds, { ...olds, workspaceId: "ws-2" })).toEqual({ changes: true, replaces: ["workspaceId"], deleteBeforeReplace: false });
  });

  it("ignores the local wait/apply/timeout settings and the outputs", async () => {
    expect(await diff(olds, { ...olds, waitFor: "completed", applyWhenConfirmable: true, timeoutSeconds: 5, pollIntervalSeconds: 2 }))
      .toMatchObject({ changes: false, replaces: [] });
  });

  it("compares address lists and variables as sets", async () => {
    const o = { ...olds, targetAddrs: ["a", "b"], variables: [{ key: "x", value: "1" }, { key: "y", value: "2" }] };
    expect(await diff(o, { ...o, targetAddrs: ["b", "a"], variables: [{ key: "y", value: "2" }, { key: "x", value: "1" }] })).toMatchObject({ changes: false });
  });
});

describe("function arguments are validated before any request", () => {
  it("names the property and the function", async () => {
    // No SVC_* configuration is needed: nothing is sent.
    await expect(createRun({ workspaceId: "ws-1", isDestroy: true, refreshOnly: true })).rejects.toThrow(/createRun: invalid input: refreshOnly: cannot be combined with isDestroy/);
    await expect(createRun({ workspaceId: "ws-1", toolVersion: "1.2.3" })).rejects.toMatchObject({ code: "invalid_input", problems: [{ path: "toolVersion" }] });
    await expect(listRuns({ workspaceId: "ws-1", status: ["bogus" as never] })).rejects.toThrow(/status\[0\]: must be a run status/);
    await expect(listRuns({ workspaceId: "ws-1", pageSize: 101 })).rejects.toThrow(/pageSize: must be at most 100/);
    await expect(getRun({ runId: "run-1", include: ["plans" as never] })).rejects.toThrow(/include\[0\]: must be one of plan, apply/);
    await expect(applyRun({ runId: "" })).rejects.toThrow(/applyRun: invalid input: runId: must not be empty/);
    await expect(forceExecuteRun({ runId: "run-1", comment: "x" } as never)).rejects.toThrow(/forceExecuteRun: invalid input/);
    await expect(waitForRun({ runId: "run-1", timeoutSeconds: -1 })).rejects.toThrow(/timeoutSeconds: must be more than 0/);
  });
});

describe("run codec", () => {
  it("encodes only the attributes set, with kebab-case names and both relationships", () => {
    expect(createDocument({ workspaceId: "ws-1", configurationVersionId: "cv-1", isDestroy: false, targetAddrs: ["a"], variables: [{ key: "k", value: "\"v\"" }], toolVersion: "1" })).toEqual({
      data: {
        type: "runs",
        attributes: { "is-destroy": false, "target-addrs": ["a"], variables: [{ key: "k", value: "\"v\"" }], "tool-version": "1" },
        relationships: {
          workspace: { data: { type: "workspaces", id: "ws-1" } },
          "configuration-version": { data: { type: "configuration-versions", id: "cv-1" } },
        },
      },
    });
    expect((createDocument({ workspaceId: "ws-1" }) as { data: { relationships: object } }).data.relationships).not.toHaveProperty("configuration-version");
  });

  it("decodes a run document into camelCase, including the underscore force-cancel field", () => {
    const run = runFromResource({
      id: "run-1", type: "runs",
      attributes: {
        status: "planning", message: "hi", source: "svc-api", "is-destroy": false, "plan-only": false, "has-changes": true,
        "auto-apply": false, "refresh-only": false, refresh: true, "target-addrs": null, "replace-addrs": ["x"], variables: [{ key: "a", value: "1" }],
        actions: { "is-cancelable": true, "is-confirmable": false, "is-discardable": false, "is-force-cancelable": false },
        permissions: { "can-apply": true, "can-force-cancel": true },
        "status-timestamps": { "plan-queueable-at": "2024-01-01T00:00:00.000Z", "planning-at": "2024-01-01T00:00:01.000Z" },
        force_cancel_available_at: "2024-01-01T00:01:00.000Z", "canceled-at": null, "created-at": "2024-01-01T00:00:00.000Z", "trigger-reason": "manual",
      },
      relationships: { workspace: { data: { id: "ws-1", type: "workspaces" } }, "configuration-version": { data: { id: "cv-1", type: "configuration-versions" } }, plan: { data: null } },
    });
    expect(run).toMatchObject({
      id: "run-1", status: "planning", hasChanges: true, targetAddrs: null, replaceAddrs: ["x"], workspaceId: "ws-1", configurationVersionId: "cv-1",
      actions: { isCancelable: true, isConfirmable: false }, permissions: { canApply: true, canForceCancel: true, canComment: false },
      statusTimestamps: { planQueueableAt: "2024-01-01T00:00:00.000Z", planningAt: "2024-01-01T00:00:01.000Z" },
      forceCancelAvailableAt: "2024-01-01T00:01:00.000Z", canceledAt: null, triggerReason: "manual",
    });
    expect(run).not.toHaveProperty("planId");
  });

  it("reads back every create attribute under the same wire name (the lost-create search compares them)", () => {
    const missing = runCreateSet.inputs.filter((k) => runDetailsSet.wire[k] === undefined || (!runCreateSet.identity.includes(k) && runDetailsSet.wire[k] !== runCreateSet.wire[k]));
    expect(missing).toEqual([]);
  });

  it("reports the blanks of a run document that leaves everything out, fresh for each run", () => {
    const a = runFromResource({ id: "run-1", type: "runs", attributes: {} });
    expect(a).toEqual({
      id: "run-1", status: "", message: "", source: "", isDestroy: false, planOnly: false, refresh: true, refreshOnly: false, autoApply: false,
      allowEmptyApply: false, allowConfigGeneration: false, hasChanges: false, targetAddrs: null, replaceAddrs: null, variables: [],
      actions: { isCancelable: false, isConfirmable: false, isDiscardable: false, isForceCancelable: false },
      permissions: { canApply: false, canCancel: false, canComment: false, canDiscard: false, canForceExecute: false, canForceCancel: false, canOverridePolicyCheck: false },
      statusTimestamps: {}, canceledAt: null, createdAt: "", workspaceId: "",
    });
    a.variables.push({ key: "k", value: "v" });
    a.actions.isConfirmable = true;
    const b = runFromResource({ id: "run-2", type: "runs", attributes: {} });
    expect([b.variables, b.actions.isConfirmable]).toEqual([[], false]);
  });

  it("sends list filters as comma-separated lists and leaves unset ones out", () => {
    expect(listQuery({ workspaceId: "ws", status: ["applied", "errored"], searchBasic: "fix" })).toMatchObject({
      "filter[status]": ["applied", "errored"], "search[basic]": "fix", "filter[operation]": undefined,
    });
  });
});

describe("decisions from actions, not from status lists", () => {
  const run = (status: string, actions: Partial<RunDetails["actions"]> = {}) =>
    ({ status, actions: { isCancelable: false, isConfirmable: false, isDiscardable: false, isForceCancelable: false, ...actions } }) as RunDetails;

  it("counts the plan as finished when confirmable, awaiting override, applying or ended", () => {
    expect(planFinished(run("cost_estimated"))).toBe(false); // a status name alone says nothing
    expect(planFinished(run("cost_estimated", { isConfirmable: true }))).toBe(true);
    expect(planFinished(run("policy_override"))).toBe(true);
    expect(planFinished(run("apply_queued"))).toBe(true);
    expect(planFinished(run("planned_and_finished"))).toBe(true);
    expect(planFinished(run("planning"))).toBe(false);
  });

  it("treats applied, canceled and force_canceled as terminal with the seed's final statuses", () => {
    for (const s of ["applied", "canceled", "force_canceled", "errored", "discarded", "planned_and_finished", "policy_soft_failed"]) expect(isTerminal(run(s))).toBe(true);
    for (const s of ["pending", "planning", "planned", "policy_override", "applying", "confirmed"]) expect(isTerminal(run(s))).toBe(false);
  });

  it("lists the allowed actions", () => {
    expect(allowedActions(run("planned", { isConfirmable: true, isDiscardable: true }))).toEqual(["apply", "discard"]);
    expect(allowedActions(run("applied"))).toEqual([]);
  });
});
