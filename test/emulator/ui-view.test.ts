import { describe, expect, test } from "vitest";
import { startEmulator } from "../../src/emulator";
import { bearer, svcToken } from "./helpers";
import { call } from "../support/http";
import { clients, ok, populate, SECRETS } from "./populate";

/** What the web page is given, without a browser: every engine's objects, never a secret. */
describe("the web page's data", () => {
  test("every engine's objects are listed with links to their JSON; no secret in either; names stay data", async () => {
    const emu = await startEmulator({ clusters: 2 });
    try {
      const made = await populate(emu);
      const hostile = `<svg onload="alert(1)">`;
      await ok(clients(emu).sec("POST", `transform/alphabet/${encodeURIComponent(hostile)}`, { alphabet: "01" }));
      const state = await ok(call("GET", `${emu.controlUrl}/ui/state.json`), 200);
      const groups = state.json.groups as { service: string; cluster: number; group: string; kinds: { kind: string; count: number; objects: { name: string; ref: string }[] }[] }[];
      const names = (group: string, kind: string, cluster = 0) =>
        groups.find((g) => g.group === group && g.cluster === cluster)?.kinds.find((k) => k.kind === kind)?.objects.map((o) => o.name) ?? [];
      expect(names("transform", "alphabet")).toEqual(expect.arrayContaining(["digits", hostile]));
      expect(names("transform", "transformation")).toEqual(["card", "tok"]);
      expect(names("keymgmt", "kms")).toEqual(["p"]);
      expect(names("directory", "library")).toEqual(["lib"]);
      expect(names("registry", "role")).toEqual(["m"]);
      expect(names("transform-eu", "alphabet")).toEqual(["eu"]);
      expect(names("transform", "alphabet", 1)).toEqual(["on-cluster-1"]);
      expect(names("run", "notificationConfigurations")).toEqual([made.ncId]);
      // What describes an object is shown: a role's transformations, a transformation's tweak source.
      const fieldsOf = (group: string, kind: string, name: string) => (groups.find((g) => g.group === group && g.cluster === 0)!
        .kinds.find((k) => k.kind === kind)!.objects as unknown as { name: string; fields: Record<string, unknown> }[]).find((o) => o.name === name)!.fields;
      expect(fieldsOf("transform", "role", "app")).toMatchObject({ transformations: ["tok", "card"] });
      expect(fieldsOf("transform", "transformation", "card")).toMatchObject({ tweak_source: "internal" });
      // A finished run is marked so: the page offers it no step and no outcome.
      const finished = (state.json.runs as { status: string; finished: boolean }[]).map((r) => [r.status, r.finished]);
      for (const [status, done] of finished) expect(done, String(status)).toBe(["applied", "planned_and_finished", "discarded", "errored", "canceled", "force_canceled", "policy_soft_failed"].includes(String(status)));
      // Tokenized values are counted, never listed.
      const tokens = groups.find((g) => g.group === "transform")!.kinds.find((k) => k.kind === "tokens")!;
      expect(tokens).toMatchObject({ count: 1, objects: [] });
      expect(state.json.runs.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining(made.runIds));

      const secrets = [...Object.values(SECRETS).filter((s) => s !== SECRETS.plaintext), made.token, made.account.password, made.registryToken, ...Object.values(emu.tokens), emu.clusters[1].secretsToken];
      const objects = await Promise.all(groups.flatMap((g) => g.kinds.flatMap((k) => k.objects.map((o) => call("GET", `${emu.controlUrl}/ui/object?${o.ref}`)))));
      expect(objects.length).toBeGreaterThan(30);
      for (const res of [state, ...objects]) {
        expect(res.status).toBe(200);
        for (const secret of secrets) expect(res.text).not.toContain(secret);
      }
      const kms = await call("GET", `${emu.controlUrl}/ui/object?service=secrets&cluster=0&group=keymgmt&kind=kms&name=p`);
      expect(kms.json).toEqual({ provider: "azurekeyvault", key_collection: "vault-one", credentials: "••••••" });
      expect((await call("GET", `${emu.controlUrl}/ui/object?service=secrets&cluster=0&group=transform&kind=tokens&name=tok`)).status).toBe(404);
      expect((await call("GET", `${emu.controlUrl}/ui/object?service=secrets&cluster=0&group=transform&kind=alphabet&name=__proto__`)).status).toBe(404);
      // The request log holds method, path, status and time only.
      expect(Object.keys(state.json.requests[0]).sort()).toEqual(["at", "method", "path", "status"]);
    } finally {
      await emu.close();
    }
  });

  test("the page is served with a strict CSP and its first state as inert data, no secret in it; beyond loopback only with the control token", async () => {
    const emu = await startEmulator();
    const remote = await startEmulator({ controlToken: "ui-view-control-token" });
    try {
      const hostile = "</script><script>window.__pwned=1</script>";
      const made = await call("POST", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, {
        headers: bearer(emu.tokens.runAdmin),
        body: { data: { type: "notification-configurations", attributes: { name: hostile, "destination-type": "generic", enabled: false, url: "https://hooks.example/x", triggers: [] } } },
      });
      expect(made.status).toBe(201);
      const page = await call("GET", `${emu.controlUrl}/ui/`);
      expect(page.status).toBe(200);
      expect(page.headers["content-type"]).toMatch(/^text\/html/);
      expect(page.headers["content-security-policy"]).toMatch(/script-src 'self'/);
      expect(page.text).not.toContain(emu.tokens.secretsRoot);
      // The state the page renders before its first poll: the same as state.json's, and a name that
      // closes the script element stays inside it (one data block, one script).
      const block = /<script type="application\/json" id="first-state">([^<]*)<\/script>/.exec(page.text);
      expect(block).not.toBeNull();
      const first = JSON.parse(block![1]!);
      expect(JSON.stringify(first.groups)).toContain(hostile);
      expect(first.cluster).toBe((await call("GET", `${emu.controlUrl}/ui/state.json`)).json.cluster);
      expect(page.text.match(/<script/g)).toHaveLength(2);
      expect((await call("GET", `${emu.controlUrl}/ui/app.js`)).headers["content-type"]).toMatch(/^text\/javascript/);
      expect((await call("GET", `${remote.controlUrl}/ui/`)).status).toBe(401);
      expect((await call("GET", `${remote.controlUrl}/ui/state.json`)).status).toBe(401);
      // ?token= opens the page only: other control endpoints still want the header.
      const opened = await call("GET", `${remote.controlUrl}/ui/?token=ui-view-control-token`);
      expect(opened.text).toContain(`/_emulator/ui/app.js?token=ui-view-control-token`);
      expect((await call("GET", `${remote.controlUrl}/faults?token=ui-view-control-token`)).status).toBe(401);
      expect((await call("GET", `${remote.controlUrl}/ui/state.json`, { headers: { "x-emulator-control-token": "ui-view-control-token" } })).status).toBe(200);
      expect((await call("GET", `${emu.secretsUrl}/sys/health`, { headers: svcToken("x") })).status).toBe(200);
    } finally {
      await Promise.all([emu.close(), remote.close()]);
    }
  });
});
