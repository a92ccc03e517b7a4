// The run service's objects on field records (issue 23): a misspelt property is refused at check,
// or by a function before any request, with the nearest known name; the notification token is
// redacted without a hand-written registration; the derived lists and bodies are the old ones, and
// a run-service object's definition derives from its record and route rows (src/runs/serviceObject.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { redact } from "../../src/http/redact";
import { applyRun, createRun, forceExecuteRun, getRun, listRuns, verifyNotificationConfiguration, waitForRun } from "../../src/runs";
import { fieldSet } from "../../src/core/fields";
import { notificationConfigurationDefinition as nc, notificationConfigurationFields, notificationConfigurationSet } from "../../src/runs/notificationConfiguration";
import { RUNS_ROUTES } from "../../src/runs/routes";
import { comparedKeys, serviceObject } from "../../src/runs/serviceObject";
import { runDefinition } from "../../src/runs/run";

type Props = Record<string, unknown>;
type Failure = { property: string; reason: string };
const check = async (kind: string, news: Props) => ((await call(kind, "check", [{}, news])) as { failures: Failure[] }).failures;

const saved = { url: process.env.SVC_RUN_URL, token: process.env.SVC_RUN_TOKEN };
// check fails a resource whose service is not configured; nothing here makes a request.
beforeAll(() => { process.env.SVC_RUN_URL = "http://127.0.0.1:9/api/v2"; process.env.SVC_RUN_TOKEN = "unit-token"; });
afterAll(() => {
  if (saved.url === undefined) delete process.env.SVC_RUN_URL; else process.env.SVC_RUN_URL = saved.url;
  if (saved.token === undefined) delete process.env.SVC_RUN_TOKEN; else process.env.SVC_RUN_TOKEN = saved.token;
});

const hook = { workspaceId: "ws-1", name: "ci", destinationType: "generic", url: "https://hooks.example.com/run" };

describe("a misspelt property is refused at check, naming the nearest known one", () => {
  it("NotificationConfiguration", async () => {
    expect(await check("runs:NotificationConfiguration", { ...hook, trigers: ["run:completed"] }))
      .toContainEqual({ property: "trigers", reason: "unknown property; did you mean triggers?" });
    expect(await check("runs:NotificationConfiguration", { ...hook, emailUser: ["user-1"] }))
      .toContainEqual({ property: "emailUser", reason: "unknown property; did you mean emailUsers?" });
  });

  it("Run", async () => {
    expect(await check("runs:Run", { workspaceId: "ws-1", mesage: "deploy" }))
      .toContainEqual({ property: "mesage", reason: "unknown property; did you mean message?" });
    expect(await check("runs:Run", { workspaceId: "ws-1", waitFr: "completed" }))
      .toContainEqual({ property: "waitFr", reason: "unknown property; did you mean waitFor?" });
  });

  it("the run functions, before any request", async () => {
    await expect(createRun({ workspaceId: "ws-1", mesage: "m" } as never)).rejects.toThrow(/createRun: invalid input: mesage: unknown property; did you mean message\?/);
    await expect(getRun({ runId: "run-1", includes: ["plan"] } as never)).rejects.toThrow(/includes: unknown property; did you mean include\?/);
    await expect(listRuns({ workspaceId: "ws-1", pageSise: 5 } as never)).rejects.toThrow(/pageSise: unknown property; did you mean pageSize\?/);
    await expect(applyRun({ runId: "run-1", coment: "x" } as never)).rejects.toThrow(/coment: unknown property; did you mean comment\?/);
    await expect(forceExecuteRun({ runID: "run-1" } as never)).rejects.toThrow(/runID: unknown property; did you mean runId\?/);
    await expect(waitForRun({ runId: "run-1", timeoutSecond: 5 } as never)).rejects.toThrow(/timeoutSecond: unknown property; did you mean timeoutSeconds\?/);
    await expect(verifyNotificationConfiguration({ id: "nc-1", idd: "x" } as never)).rejects.toThrow(/idd: unknown property; did you mean id\?/);
  });
});

describe("the records give the lists the definitions had by hand", () => {
  const sorted = (l: readonly string[] | undefined) => [...(l ?? [])].sort();

  it("NotificationConfiguration", () => {
    expect(nc.defaults).toEqual({ enabled: false, triggers: [] });
    expect(sorted(nc.sets)).toEqual(["emailUsers", "triggers"]);
    expect(sorted(nc.immutable)).toEqual(["destinationType", "workspaceId"]);
    expect(nc.identity ?? []).toEqual([]);
    expect(nc.secrets).toEqual(["token"]);
    expect(nc.writeOnly).toEqual(["token"]);
    expect(sorted(nc.outputs)).toEqual(["createdAt", "deliveryResponses", "updatedAt"]);
    // What serviceObject derives from the record and the route rows (src/runs/serviceObject.ts).
    expect(comparedKeys(notificationConfigurationSet, ["workspaceId"])).toEqual(["name", "destinationType", "url", "enabled", "triggers", "emailUsers"]);
    expect(nc.routes).toEqual({
      create: "POST /workspaces/{workspace_id}/notification-configurations", read: "GET /notification-configurations/{id}",
      update: "PATCH /notification-configurations/{id}", delete: "DELETE /notification-configurations/{id}", list: "GET /workspaces/{workspace_id}/notification-configurations",
    });
    expect(nc.discover).toEqual({ list: "GET /workspaces/{workspace_id}/notification-configurations" });
    expect(nc.leftovers?.otherwise).toBe('to take over one made another way, set adoptId: "<its id>"');
  });

  it("a run-service object whose record leaves out what its routes or its refusal of a twin name is refused, naming it", () => {
    const { adoptId: _, ...withoutAdopt } = notificationConfigurationFields;
    const routes = RUNS_ROUTES.notificationConfiguration;
    expect(() => serviceObject({ kind: "runs:Widget", fields: fieldSet(withoutAdopt, { case: "kebab" }), routes }))
      .toThrow("runs:Widget: its record declares no adoptId, the way a refused create offers to take its twin over");
    const { workspaceId: __, ...withoutContainer } = notificationConfigurationFields;
    expect(() => serviceObject({ kind: "runs:Widget", fields: fieldSet(withoutContainer, { case: "kebab" }), routes }))
      .toThrow("runs:Widget: no field of its record names {workspace_id} of POST /workspaces/{workspace_id}/notification-configurations");
    const fields = fieldSet(notificationConfigurationFields, { case: "kebab" });
    expect(() => serviceObject({ kind: "runs:Widget", fields, routes: { ...routes, delete: "DELETE /notification-configurations/{nc_id}" } }))
      .toThrow("runs:Widget: read, update and delete must take the one id parameter alike (GET /notification-configurations/{id}, PATCH /notification-configurations/{id}, DELETE /notification-configurations/{nc_id})");
  });

  it("Run", () => {
    expect(runDefinition.defaults).toEqual({ waitFor: "none", applyWhenConfirmable: false, timeoutSeconds: 1800 });
    expect(sorted(runDefinition.sets)).toEqual(["replaceAddrs", "targetAddrs", "variables"]);
    expect(sorted(runDefinition.immutable)).toEqual([
      "allowConfigGeneration", "allowEmptyApply", "autoApply", "configurationVersionId", "isDestroy", "message", "planOnly",
      "refresh", "refreshOnly", "replaceAddrs", "targetAddrs", "toolVersion", "triggers", "variables", "workspaceId",
    ]);
    expect(runDefinition.identity).toEqual(["workspaceId"]);
    expect(sorted(runDefinition.local)).toEqual(["applyWhenConfirmable", "pollIntervalSeconds", "timeoutSeconds", "waitFor"]);
    expect(sorted(runDefinition.outputs)).toEqual(["createdAt", "hasChanges", "runId", "status", "statusTimestamps"]);
    expect(runDefinition.secrets ?? []).toEqual([]);
  });
});

describe("the notification token is registered for redaction by its field", () => {
  it("from the inputs of any operation, with no call of its own", async () => {
    const token = "hook-token-d41d8cd98f00";
    expect(redact(`echo ${token}`)).toContain(token);
    await check("runs:NotificationConfiguration", { ...hook, token });
    expect(redact(`echo ${token}`)).not.toContain(token);
  });
});
