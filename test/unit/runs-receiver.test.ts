import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseNotification, verifyNotificationSignature } from "../../src/runs";

const TOKEN = "receiver-token-1";
const sign = (body: string | Buffer, token = TOKEN) => createHmac("sha512", token).update(body).digest("hex");

const runPayload = () => ({
  payload_version: 1,
  notification_configuration_id: "nc-1",
  run_url: "http://127.0.0.1/api/v2/runs/run-1",
  run_id: "run-1",
  run_message: "Queued manually",
  run_created_at: "2024-01-01T00:00:00.000Z",
  run_created_by: "admin",
  workspace_id: "ws-1",
  workspace_name: "example",
  organization_name: "example-org",
  notifications: [{ message: "Run planning", trigger: "run:planning", run_status: "planning", run_updated_at: "2024-01-01T00:00:01.000Z", run_updated_by: "admin" }],
});

const result = (id: string) => ({
  id, url: `http://127.0.0.1/api/v2/assessment-results/${id}`, succeeded: true, all_checks_succeeded: false,
  checks_passed: 3, checks_failed: 1, checks_errored: 0, checks_unknown: 0, drifted: true, resources_drifted: 2, resources_undrifted: 5,
  created_at: "2024-01-01T00:00:00.000Z",
});

const assessmentPayload = () => ({
  payload_version: 2,
  notification_configuration_id: "nc-1",
  notification_configuration_url: "http://127.0.0.1/api/v2/notification-configurations/nc-1",
  trigger_scope: "assessment",
  trigger: "assessment:drifted",
  message: "Drift detected",
  details: { new_assessment_result: result("asmtres-2"), prior_assessment_result: result("asmtres-1"), workspace_id: "ws-1", workspace_name: "example", organization_name: "example-org" },
});

describe("verifyNotificationSignature", () => {
  const body = JSON.stringify(runPayload());

  it("accepts the hex HMAC-SHA512 of the exact body, as text or bytes, in either case of hex", () => {
    expect(verifyNotificationSignature(body, sign(body), TOKEN)).toBe(true);
    expect(verifyNotificationSignature(Buffer.from(body), sign(body), TOKEN)).toBe(true);
    expect(verifyNotificationSignature(body, sign(body).toUpperCase(), TOKEN)).toBe(true);
    expect(verifyNotificationSignature(body, [sign(body)], TOKEN)).toBe(true);
  });

  it("refuses a changed body, another token, and a re-serialized body", () => {
    expect(verifyNotificationSignature(body.replace("planning", "applying"), sign(body), TOKEN)).toBe(false);
    expect(verifyNotificationSignature(body, sign(body, "other"), TOKEN)).toBe(false);
    expect(verifyNotificationSignature(JSON.stringify(JSON.parse(body), null, 2), sign(body), TOKEN)).toBe(false);
  });

  it("is false (never throws) for a missing, empty, short, non-hex or repeated header, and for an empty token", () => {
    expect(verifyNotificationSignature(body, undefined, TOKEN)).toBe(false);
    expect(verifyNotificationSignature(body, "", TOKEN)).toBe(false);
    expect(verifyNotificationSignature(body, sign(body).slice(0, 64), TOKEN)).toBe(false);
    expect(verifyNotificationSignature(body, "z".repeat(128), TOKEN)).toBe(false);
    expect(verifyNotificationSignature(body, `sha512=${sign(body)}`, TOKEN)).toBe(false);
    expect(verifyNotificationSignature(body, [sign(body), sign(body)], TOKEN)).toBe(false);
    expect(verifyNotificationSignature(body, sign(body, ""), "")).toBe(false);
  });
});

describe("parseNotification", () => {
  it("returns a run payload (version 1) from text, bytes or an object", () => {
    for (const input of [JSON.stringify(runPayload()), Buffer.from(JSON.stringify(runPayload())), runPayload()]) {
      const r = parseNotification(input);
      expect(r).toEqual({ ok: true, kind: "run", payload: runPayload() });
    }
  });

  it("accepts a null creator (runs queued by a team token)", () => {
    const p = { ...runPayload(), run_created_by: null };
    p.notifications[0] = { ...p.notifications[0], run_updated_by: null as unknown as string };
    expect(parseNotification(p)).toMatchObject({ ok: true, kind: "run" });
  });

  it("names every problem by its field path", () => {
    const p = runPayload() as Record<string, unknown>;
    (p.notifications as Record<string, unknown>[])[0].trigger = "run:exploded";
    (p.notifications as Record<string, unknown>[])[0].run_status = "done";
    delete p.run_id;
    const r = parseNotification(p);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems.sort()).toEqual([
      expect.stringMatching(/^notifications\[0\]\.run_status: must be a run status/),
      expect.stringMatching(/^notifications\[0\]\.trigger: must be one of run:created, run:planning/),
      expect.stringMatching(/^run_id: /),
    ]);
    expect(parseNotification({ ...runPayload(), notifications: [] })).toEqual({ ok: false, problems: ["notifications: must hold at least one notification"] });
  });

  it("returns an assessment payload (version 2, also when the version is sent as text)", () => {
    expect(parseNotification(assessmentPayload())).toEqual({ ok: true, kind: "assessment", payload: assessmentPayload() });
    const r = parseNotification({ ...assessmentPayload(), payload_version: "2" });
    expect(r).toMatchObject({ ok: true, kind: "assessment", payload: { payload_version: 2 } });
    expect(parseNotification({ ...assessmentPayload(), details: { ...assessmentPayload().details, prior_assessment_result: null } })).toMatchObject({ ok: true });
  });

  it("names problems inside assessment results", () => {
    const p = assessmentPayload();
    (p.details.new_assessment_result as Record<string, unknown>).checks_failed = "1";
    p.trigger = "run:created";
    const r = parseNotification(p);
    expect(!r.ok && r.problems.sort()).toEqual([
      expect.stringMatching(/^details\.new_assessment_result\.checks_failed: must be a number/),
      expect.stringMatching(/^trigger: must be one of assessment:drifted/),
    ]);
  });

  it("recognises a verification request (run fields null)", () => {
    const v = {
      ...runPayload(), run_url: null, run_id: null, run_message: null, run_created_at: null, run_created_by: null,
      notifications: [{ message: "Verification of ci", trigger: "verification", run_status: null, run_updated_at: null, run_updated_by: null }],
    };
    expect(parseNotification(v)).toMatchObject({ ok: true, kind: "verification" });
  });

  it("refuses what is not a notification, without throwing", () => {
    expect(parseNotification("{not json")).toMatchObject({ ok: false, problems: [expect.stringMatching(/^\(body\): is not JSON/)] });
    expect(parseNotification("[]")).toEqual({ ok: false, problems: ["(body): must be a JSON object"] });
    expect(parseNotification({ ...runPayload(), payload_version: 3 })).toEqual({ ok: false, problems: ["payload_version: must be 1 (run notification) or 2 (assessment notification)"] });
  });
});
