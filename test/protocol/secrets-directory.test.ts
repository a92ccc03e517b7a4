import { beforeAll, describe, expect, it } from "vitest";
import { control, secretsApi } from "../support/emulator";
import { hostChecked, serializedProvider, urn, useHosts } from "../support/protocol";

const CONFIG = "secrets:DirectoryConfig";
const ROLE = "secrets:DirectoryRole";
const SET = "secrets:DirectoryLibrarySet";
const OUT = "secrets:DirectoryCheckOut";
const BINDPASS = "Pb5Wq2Zt8Lm4Kx7R";

const { emu, host } = useHosts({ host: (emu) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsUser }) });

beforeAll(async () => {
  await control(emu, "POST", "/directory/accounts", { accounts: ["svc-app", "pool-1", "pool-2"] });
});

const binds = async (name: string, password: string) => (await control<{ ok: boolean }>(emu, "POST", "/directory/bind", { name, password })).ok;

describe("the directory engine through the real dynamic-provider host", () => {
  it("check failures name the property", async () => {
    const r = await host.check(urn(SET, "bad"), {}, { __provider: await serializedProvider(SET), name: "s", serviceAccountNames: ["a", "a"], ttl: "2h", maxTtl: "1h" });
    expect(r.failures.map((f) => f.property).sort()).toEqual(["maxTtl", "serviceAccountNames"]);
    const c = await host.check(urn(CONFIG, "bad"), {}, { __provider: await serializedProvider(CONFIG), binddn: "x", bindpass: "y", formatter: "{{PASSWORD}}{{PASSWORD}}" });
    expect(c.failures.map((f) => f.property)).toEqual(["formatter"]);
  });

  it("config → role → library set → check-out, and back, with no secret in the host's output", async () => {
    const cfgIn = await hostChecked(host, CONFIG, "cfg", { binddn: "cn=admin,dc=example,dc=org", bindpass: BINDPASS, url: "ldap://127.0.0.1:1", ttl: "1h" });
    const cfg = await host.create(urn(CONFIG, "cfg"), cfgIn);
    expect(cfg.outs).toMatchObject({ ttl: "1h", bindpass: BINDPASS });
    expect(await host.diff(urn(CONFIG, "cfg"), cfg.id, (await host.read(urn(CONFIG, "cfg"), cfg.id, cfg.outs)).props, cfgIn)).toMatchObject({ changes: false });

    const roleIn = await hostChecked(host, ROLE, "app", { name: "app", serviceAccountName: "svc-app", ttl: 3600 });
    const role = await host.create(urn(ROLE, "app"), roleIn);
    expect(role.outs).toMatchObject({ serviceAccountName: "svc-app", ttl: 3600, lastServiceRotation: expect.any(String) });

    const setIn = await hostChecked(host, SET, "pool", { name: "pool", serviceAccountNames: ["pool-1"] });
    const set = await host.create(urn(SET, "pool"), setIn);
    expect(set.outs).toMatchObject({ ttl: "24h", maxTtl: "24h", serviceAccountNames: ["pool-1"] });
    const setNews = await hostChecked(host, SET, "pool", { name: "pool", serviceAccountNames: ["pool-1", "pool-2"] }, set.outs);
    expect(await host.diff(urn(SET, "pool"), set.id, set.outs, setNews)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const setAfter = await host.update(urn(SET, "pool"), set.id, set.outs, setNews);

    const outIn = await hostChecked(host, OUT, "borrow", { setName: "pool" });
    const out = await host.create(urn(OUT, "borrow"), outIn);
    expect(out.outs).toMatchObject({ serviceAccountName: "pool-1", leaseDuration: 86400 });
    const password = out.outs.password as string;
    expect(await binds("pool-1", password)).toBe(true);
    expect(await host.diff(urn(OUT, "borrow"), out.id, out.outs, { ...outIn, ttl: "1h" })).toEqual({ changes: true, replaces: ["ttl"], deleteBeforeReplace: true });

    await host.delete(urn(OUT, "borrow"), out.id, out.outs);
    expect(await binds("pool-1", password)).toBe(false);
    await host.delete(urn(SET, "pool"), set.id, setAfter.outs);
    await host.delete(urn(ROLE, "app"), role.id, role.outs);
    await host.delete(urn(CONFIG, "cfg"), cfg.id, cfg.outs);
    expect((await secretsApi(emu, "GET", "/directory/config")).status).toBe(404);
    for (const s of [BINDPASS, password, ...Object.values(emu.tokens)]) expect(host.stderr()).not.toContain(s);
  });
});
