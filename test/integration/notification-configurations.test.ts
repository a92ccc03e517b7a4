import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { verifyNotificationConfiguration } from "../../src/runs";
import { checked, created } from "../support/calls";
import { control, requests, runApi, useEmulator } from "../support/emulator";
import { useReceiver } from "../support/receiver";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator();
const hook = useReceiver();

const KIND = "runs:NotificationConfiguration";
type Props = Record<string, any>;

const listed = async (): Promise<Props[]> => (await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/notification-configurations`)).body.data;

const base = () => ({ workspaceId: emu.workspaceId, name: "ci", destinationType: "generic", url: hook.url, triggers: ["run:errored", "run:completed"] });

describe("notification configuration", () => {
  it("creates an enabled configuration after a signed verification request, and reads it back", async () => {
    hook.received.length = 0;
    hook.status = 200;
    const inputs = await checked(KIND, { ...base(), enabled: true, token: "hook-secret-1" });
    const { id, outs } = (await call(KIND, "create", [inputs])) as { id: string; outs: Props };
    expect(id).toMatch(/^nc-/);
    expect(outs).toMatchObject({ workspaceId: emu.workspaceId, name: "ci", enabled: true, token: "hook-secret-1", triggers: ["run:completed", "run:errored"] });
    expect(outs.deliveryResponses[0]).toMatchObject({ url: hook.url, code: "200", successful: true });

    const got = hook.received.at(-1)!;
    const expected = createHmac("sha512", "hook-secret-1").update(got.body).digest("hex");
    expect(got.headers["x-svc-notification-signature"]).toBe(expected);

    const read = (await call(KIND, "read", [id, outs])) as { id: string; props: Props };
    expect(read.id).toBe(id);
    // The service returns the token as null; the user's value stays in state and is not a diff.
    expect(read.props.token).toBe("hook-secret-1");
    expect((await call(KIND, "diff", [id, read.props, inputs])) as Props).toMatchObject({ changes: false });
  });

  it("leaves nothing behind when verification fails on create", async () => {
    hook.status = 500;
    const inputs = await checked(KIND, { ...base(), enabled: true });
    const err = await rejectionOf(call(KIND, "create", [inputs]));
    expect(err.code).toBe("invalid_input");
    expect(err.message).toMatch(/^POST \/workspaces\/ws-example00000001\/notification-configurations: 400/);
    expect(await listed()).toEqual([]);
    hook.status = 200;
  });

  it("keeps the old configuration when verification fails on update", async () => {
    hook.status = 200;
    const { id, outs } = await created(KIND, { ...base(), enabled: false });
    hook.status = 503;
    await expect(call(KIND, "update", [id, outs, { ...outs, enabled: true, name: "renamed" }])).rejects.toThrow(/400/);
    const [only] = await listed();
    expect(only.attributes).toMatchObject({ name: "ci", enabled: false });
    hook.status = 200;
  });

  it("updates triggers in place and clears a removed token", async () => {
    const inputs = await checked(KIND, { ...base(), token: "t-1" });
    const { id, outs } = (await call(KIND, "create", [inputs])) as { id: string; outs: Props };
    const news = await checked(KIND, { ...base(), triggers: ["run:created"] });
    expect(await call(KIND, "diff", [id, outs, news])).toMatchObject({ changes: true, replaces: [] });
    const { outs: after } = (await call(KIND, "update", [id, outs, news])) as { outs: Props };
    expect(after.triggers).toEqual(["run:created"]);
    expect(after.token).toBeUndefined();
    // The emulator signs with the stored token; with it cleared a verification is unsigned.
    hook.received.length = 0;
    await call(KIND, "update", [id, after, { ...news, enabled: true }]);
    expect(hook.received.at(-1)!.headers["x-svc-notification-signature"]).toBeUndefined();
  });

  it("manages email configurations with users", async () => {
    const inputs = await checked(KIND, { workspaceId: emu.workspaceId, name: "mail", destinationType: "email", emailUsers: ["usr-admin000000001"], enabled: true });
    const { id, outs } = (await call(KIND, "create", [inputs])) as { id: string; outs: Props };
    expect(outs).toMatchObject({ destinationType: "email", emailUsers: ["usr-admin000000001"], enabled: true });
    expect(outs.url).toBeUndefined();
    const read = (await call(KIND, "read", [id, outs])) as { props: Props };
    expect(await call(KIND, "diff", [id, read.props, inputs])).toMatchObject({ changes: false });
  });

  it("does not duplicate a configuration when the create's response is lost (503 after the server acted)", async () => {
    await control(emu, "POST", "/faults", { method: "POST", path: `/api/v2/workspaces/${emu.workspaceId}/notification-configurations`, status: 503, when: "after", count: 1 });
    const { id } = await created(KIND, base());
    const all = await listed();
    expect(all.map((c) => c.id)).toEqual([id]);
  });

  it("creates exactly one when the connection drops before the server acted", async () => {
    await control(emu, "POST", "/faults", { method: "POST", path: `/api/v2/workspaces/${emu.workspaceId}/notification-configurations`, drop: true, count: 1 });
    const { id } = await created(KIND, base());
    expect((await listed()).map((c) => c.id)).toEqual([id]);
    const posts = (await requests(emu)).filter((r) => r.method === "POST");
    expect(posts).toHaveLength(2);
  });

  it("drops the configuration on refresh after an out-of-band delete", async () => {
    const { id, outs } = await created(KIND, base());
    await runApi(emu, "DELETE", `/notification-configurations/${id}`);
    expect(await call(KIND, "read", [id, outs])).toEqual({ id: "", props: {} });
    await expect(call(KIND, "delete", [id, outs])).resolves.toBeUndefined();
  });

  it("reports an unknown workspace as not found with the server's message", async () => {
    const err = await rejectionOf(created(KIND, { ...base(), workspaceId: "ws-missing" }));
    expect(err.code).toBe("not_found");
    expect(err.message).toMatch(/^POST \/workspaces\/ws-missing\/notification-configurations: 404/);
  });

  it("verifies through the function, and the Promise form validates its arguments first", async () => {
    const { id } = await created(KIND, base());
    hook.status = 200;
    const result = await verifyNotificationConfiguration({ id });
    expect(result.deliveryResponses[0]).toMatchObject({ successful: true, code: "200" });
    await expect(verifyNotificationConfiguration({ id: "" })).rejects.toThrow(/verifyNotificationConfiguration: invalid input: id: must not be empty/);
  });
});
