// examples/identity: the plugin is registered with the sudo token, the method and the alias made;
// step2 removes the old plugin before registering the renamed one and edits the others in place.
import { expect } from "vitest";
import { secretsApi } from "../../support/emulator";
import { describeExample } from "../example";
import type { Context, ExampleChecks } from "../lifecycle";

const get = (c: Context, path: string) => secretsApi(c.emu, "GET", path);
let ids = { alias: "", method: "" };

const checks: ExampleChecks = {
  after: {
    async up(c) {
      const out = await c.side.shownOutputs();
      ids = { alias: out.aliasId as string, method: out.duoMethodId as string };
      expect((await get(c, "/sys/plugins/catalog/database/acme-db")).status).toBe(200);
      expect((await get(c, `/identity/entity-alias/id/${ids.alias}`)).body.data.custom_metadata).toEqual({ team: "platform" });
    },
    async "step2 up"(c) {
      const w = await c.writes();
      expect(w.indexOf("POST /v1/sys/plugins/catalog/database/acme-db-2")).toBeGreaterThan(-1);
      // Deleted first, as every replacement of the package unless the resource says otherwise.
      expect(w.indexOf("DELETE /v1/sys/plugins/catalog/database/acme-db")).toBeGreaterThan(-1);
      expect(w.indexOf("DELETE /v1/sys/plugins/catalog/database/acme-db")).toBeLessThan(w.indexOf("POST /v1/sys/plugins/catalog/database/acme-db-2"));
      expect(await c.side.shownOutputs()).toMatchObject({ pluginName: "acme-db-2", aliasTeam: "payments", duoMethodId: ids.method, aliasId: ids.alias });
      expect((await get(c, "/sys/plugins/catalog/database/acme-db")).status).toBe(404);
      expect((await get(c, `/identity/mfa/method/dualfactor/${ids.method}`)).body.data.pushinfo).toBe("from=pulumi&step=2");
    },
    async "refresh after a change"(c) {
      expect((await get(c, `/identity/entity-alias/id/${ids.alias}`)).body.data.custom_metadata).toEqual({ team: "payments" });
    },
    async destroy(c) {
      expect((await get(c, "/sys/plugins/catalog/database/acme-db-2")).status).toBe(404);
      expect((await get(c, `/identity/mfa/method/dualfactor/${ids.method}`)).status).toBe(404);
      expect((await get(c, `/identity/entity-alias/id/${ids.alias}`)).status).toBe(404);
    },
  },
};

describeExample("identity", checks);
