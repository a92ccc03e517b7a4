import { describe, expect, it } from "vitest";
import { useProgram } from "../support/program";

const HOOK_TOKEN = "quickstart-hook-token-1a2b";
const HOOK_TOKEN2 = "quickstart-hook-token-2c3d";

const { emu, run, ops, get, runApi, secretsApi, control, requests, clearRequests, stateText } = useProgram({
  example: "quickstart", project: "pulumi-svc-quickstart",
  config: ({ emu }) => ({ "quickstart:hookUrl": `${emu.controlUrl}/sink/quickstart` }),
  secretConfig: () => ({ "quickstart:hookToken": HOOK_TOKEN, "quickstart:hookToken2": HOOK_TOKEN2 }),
});

const secretsGet = async (p: string): Promise<number> => (await get(p)).status;
const configurations = async (): Promise<{ id: string; attributes: Record<string, unknown> }[]> =>
  (await runApi("GET", `/workspaces/${emu.workspaceId}/notification-configurations`)).body.data;

describe("the quickstart program through the engine double", () => {
  it("previews three creates without a single request to either service", async () => {
    await clearRequests();
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ digits: "create", ssn: "create", "ci-hook": "create" });
    expect(await requests()).toEqual([]);
  });

  it("deploys both services, verifying the webhook with a signed request", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ digits: "create", ssn: "create", "ci-hook": "create" });
    expect(r.outputs).toMatchObject({ alphabet: "0123456789", templatePattern: "(\\d{3})-(\\d{2})-(\\d{4})", hookVerified: true });
    expect(await secretsGet("/transform/alphabet/digits")).toBe(200);
    expect(await secretsGet("/transform/template/us-ssn")).toBe(200);
    const sink = await control<{ requests: { headers: Record<string, string> }[] }>("GET", "/sinks/quickstart");
    expect(sink.requests.at(-1)!.headers["x-svc-notification-signature"]).toMatch(/^[0-9a-f]{128}$/);
  });

  it("stores no token or secret in plaintext in state", async () => {
    const text = stateText();
    for (const secret of [HOOK_TOKEN, HOOK_TOKEN2, ...Object.values(emu.tokens)]) expect(text).not.toContain(secret);
    expect(text).toContain("__provider"); // the provider text is there, and it holds no token either
  });

  it("has no perpetual diff: a second up changes nothing", async () => {
    await clearRequests();
    const r = await run("up");
    expect(ops(r)).toEqual({ digits: "same", ssn: "same", "ci-hook": "same" });
    const writes = (await requests()).filter((q) => q.method !== "GET");
    expect(writes).toEqual([]);
  });

  it("step2 updates in place and replaces the renamed template, creating before deleting", async () => {
    const [before] = await configurations();
    const r = await run("up", 2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ digits: "update", ssn: "replace", "ci-hook": "update" });
    expect(r.steps.find((s) => s.name === "ssn")).toMatchObject({ replaceKeys: ["name"], deleteBeforeReplace: false });
    expect(await secretsGet("/transform/template/us-ssn-v2")).toBe(200);
    expect(await secretsGet("/transform/template/us-ssn")).toBe(404);
    const [after, ...more] = await configurations();
    expect(more).toEqual([]);
    expect(after.id).toBe(before.id);
    expect(after.attributes.triggers).toEqual(expect.arrayContaining(["run:needs_attention"]));
    expect(r.outputs).toMatchObject({ alphabet: "0123456789abcdef", templateName: "us-ssn-v2" });
    expect(stateText()).not.toContain(HOOK_TOKEN2);
  });

  it("refresh drops an object deleted out of band, and the next up recreates it", async () => {
    // The template, not the alphabet: the service refuses to delete an alphabet a template uses.
    expect((await secretsApi("DELETE", "/transform/template/us-ssn-v2")).status).toBe(204);
    const refreshed = await run("refresh", 2);
    expect(refreshed.steps.find((s) => s.name === "ssn")?.op).toBe("read-gone");
    const r = await run("up", 2);
    expect(ops(r).ssn).toBe("create");
    expect(await secretsGet("/transform/template/us-ssn-v2")).toBe(200);
  });

  it("destroy removes everything", async () => {
    const r = await run("destroy", 2);
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => s.op)).toEqual(["delete", "delete", "delete"]);
    expect(await secretsGet("/transform/alphabet/digits")).toBe(404);
    expect(await secretsGet("/transform/template/us-ssn-v2")).toBe(404);
    expect(await configurations()).toEqual([]);
  });
});
