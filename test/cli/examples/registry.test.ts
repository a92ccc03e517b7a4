// examples/registry: access and roles configured, the generated token secret; step2 rewrites the
// reader in place and replaces the renamed legacy role, deleting before creating.
import { expect } from "vitest";
import { secretsApi } from "../../support/emulator";
import { describeExample } from "../example";
import type { Context, ExampleChecks } from "../lifecycle";

const get = (c: Context, path: string) => secretsApi(c.emu, "GET", path);

const checks: ExampleChecks = {
  after: {
    async up(c) {
      expect(await c.side.outputs()).toMatchObject({ readerToken: "[secret]" });
      expect((await get(c, "/registry/roles/legacy")).body.data.lease).toBe("30m0s");
    },
    async "step2 up"(c) {
      const w = await c.writes();
      expect(w.indexOf("POST /v1/registry/roles/legacy-v2")).toBeGreaterThan(-1);
      // Deleted first, as every replacement of the package unless the resource says otherwise.
      expect(w.indexOf("DELETE /v1/registry/roles/legacy")).toBeGreaterThan(-1);
      expect(w.indexOf("DELETE /v1/registry/roles/legacy")).toBeLessThan(w.indexOf("POST /v1/registry/roles/legacy-v2"));
      expect(await c.side.shownOutputs()).toMatchObject({ legacyName: "legacy-v2", legacyLease: "30m" });
      const reader = (await get(c, "/registry/roles/reader")).body.data;
      expect({ ttl: reader.ttl, policies: [...reader.policies].sort() }).toEqual({ ttl: 7200, policies: ["kv-read", "kv-write", "service-read"] });
      expect((await get(c, "/registry/roles/legacy")).status).toBe(404);
      expect((await get(c, "/registry/roles/legacy-v2")).body.data.lease).toBe("30m0s");
    },
    async destroy(c) {
      expect((await get(c, "/registry/roles/reader")).status).toBe(404);
      expect((await get(c, "/registry/roles/legacy-v2")).status).toBe(404);
    },
  },
};

describeExample("registry", checks);
