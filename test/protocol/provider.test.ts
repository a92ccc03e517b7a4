import { describe, expect, it } from "vitest";
import { PartialFailureError } from "../../src/engine/host";
import { control, runApi } from "../support/emulator";
import { serializedProvider, urn, useHosts } from "../support/protocol";
import { useReceiver } from "../support/receiver";

const HOOK_TOKEN = "hook-token-protocol-7f3a";
const { emu, host } = useHosts({
  host: (emu) => ({
    "svc:runUrl": emu.runUrl, "svc:runToken": emu.tokens.runAdmin,
    "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsUser,
  }),
});
const hook = useReceiver();

describe("the compiled provider through the real dynamic-provider host", () => {
  it("serializes to a small text that captures no token and no module", async () => {
    const text = await serializedProvider("secrets:TransformTemplate");
    expect(text).toContain('"secrets:TransformTemplate"');
    expect(text).toContain('require("pulumi-svc/runtime")');
    expect(Buffer.byteLength(text)).toBeLessThan(6000);
    for (const t of Object.values(emu.tokens)) expect(text).not.toContain(t);
  });

  it("serializes each identity, plugin and MFA kind to a small text without tokens", async () => {
    for (const kind of ["secrets:IdentityEntityAlias", "secrets:PluginCatalogEntry", "secrets:MfaDualFactorMethod"]) {
      const text = await serializedProvider(kind);
      expect(text).toContain(`"${kind}"`);
      expect(Buffer.byteLength(text)).toBeLessThan(6000);
      for (const t of Object.values(emu.tokens)) expect(text).not.toContain(t);
    }
  });

  it("serializes each directory and registry kind to a small text without tokens", async () => {
    for (const kind of [
      "secrets:DirectoryConfig", "secrets:DirectoryRole", "secrets:DirectoryLibrarySet", "secrets:DirectoryCheckOut", "secrets:RegistryAccessConfig", "secrets:RegistryRole",
    ]) {
      const text = await serializedProvider(kind);
      expect(text).toContain(`"${kind}"`);
      expect(Buffer.byteLength(text)).toBeLessThan(6000);
      for (const t of Object.values(emu.tokens)) expect(text).not.toContain(t);
    }
  });

  it("rejects bad inputs in check, naming the property, before any request", async () => {
    await control(emu, "DELETE", "/requests");
    const p = await serializedProvider("secrets:TransformTemplate");
    const r = await host.check(urn("secrets:TransformTemplate", "bad"), {}, { __provider: p, name: "bad", pattern: "[a-z]+" });
    expect(r.failures).toEqual([{ property: "pattern", reason: expect.stringMatching(/capture group/) }]);
    expect((await control<{ requests: unknown[] }>(emu, "GET", "/requests")).requests).toEqual([]);
  });

  it("runs check, create, read, diff, update, replace decisions and delete for a template", async () => {
    const p = await serializedProvider("secrets:TransformTemplate");
    const u = urn("secrets:TransformTemplate", "ssn");
    const { inputs, failures } = await host.check(u, {}, { __provider: p, name: "ssn", pattern: "(\\d+)" });
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({ mount: "transform", type: "regex", __provider: p });
    const { id, outs } = await host.create(u, inputs);
    expect(id).toBe("transform/template/ssn");
    expect(await host.read(u, id, outs)).toMatchObject({ id, props: outs });
    expect(await host.diff(u, id, outs, { ...inputs, __provider: p + "\n// other version" })).toMatchObject({ changes: false });
    expect(await host.diff(u, id, outs, { ...inputs, pattern: "(\\w+)" })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(await host.diff(u, id, outs, { ...inputs, name: "ssn2" })).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
    const updated = await host.update(u, id, outs, { ...inputs, pattern: "(\\w+)" });
    expect(updated.outs.pattern).toBe("(\\w+)");
    await host.delete(u, id, updated.outs);
    expect(await host.read(u, id, updated.outs)).toMatchObject({ id: "" });
  });

  it("reports a write whose read-back fails as a partial failure that keeps the id and the provider", async () => {
    const p = await serializedProvider("secrets:TransformAlphabet");
    const u = urn("secrets:TransformAlphabet", "hex");
    // Both reads of the create (existence check, then read-back) answer 404; the write succeeds.
    await control(emu, "POST", "/faults", { method: "GET", path: "/v1/transform/alphabet/hex", status: 404, count: 2 });
    const err = await host.create(u, { __provider: p, name: "hex", mount: "transform", alphabet: "0123456789abcdef" }).catch((e) => e);
    expect(err).toBeInstanceOf(PartialFailureError);
    expect(err.id).toBe("transform/alphabet/hex");
    expect(err.properties).toMatchObject({ alphabet: "0123456789abcdef", __provider: p });
    // The engine would keep it; deleting it through the same properties works.
    await host.delete(u, err.id, err.properties);
  });

  it("keeps a notification token out of the host's output and error messages", async () => {
    const p = await serializedProvider("runs:NotificationConfiguration");
    const u = urn("runs:NotificationConfiguration", "hook");
    const news = { __provider: p, workspaceId: emu.workspaceId, name: "ci", destinationType: "generic", url: hook.url, enabled: true, token: HOOK_TOKEN, triggers: ["run:completed"] };
    const { inputs } = await host.check(u, {}, news);
    const { id, outs } = await host.create(u, inputs);
    expect(outs.token).toBe(HOOK_TOKEN); // kept from the input; the engine double marks it secret
    const read = await host.read(u, id, outs);
    expect(read.props.token).toBe(HOOK_TOKEN);
    expect(await host.diff(u, id, read.props, inputs)).toMatchObject({ changes: false });

    hook.status = 500;
    const err = await host.update(u, id, outs, { ...inputs, name: "renamed" }).catch((e) => e);
    expect(String(err.message)).toMatch(/400/);
    expect(String(err.message)).not.toContain(HOOK_TOKEN);
    hook.status = 200;
    await host.delete(u, id, outs);
    expect((await runApi(emu, "GET", `/notification-configurations/${id}`)).status).toBe(404);
    for (const t of [HOOK_TOKEN, ...Object.values(emu.tokens)]) expect(host.stderr()).not.toContain(t);
  });
});
