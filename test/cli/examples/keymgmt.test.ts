// examples/keymgmt: the keys are distributed to the provider with their purposes; step2 rotates the
// signing key and disables version 1 in place, makes the wrapping key anew (its distribution deleted
// before it and made again after) and deletes the legacy key; the distribution is recreated after an
// out-of-band removal, and destroy removes the distributions before the keys and the provider.
import { expect } from "vitest";
import { secretsApi } from "../../support/emulator";
import { describeExample } from "../example";
import type { Context, ExampleChecks } from "../lifecycle";

const get = (c: Context, path: string) => secretsApi(c.emu, "GET", path);

const checks: ExampleChecks = {
  after: {
    async up(c) {
      expect(await c.side.shownOutputs()).toMatchObject({
        providerKeyName: expect.stringMatching(/^release-signing-\d+$/),
        publicKey: expect.stringContaining("BEGIN PUBLIC KEY"),
      });
      expect((await get(c, "/keymgmt/kms/aws-eu")).body.data).toEqual({ provider: "awskms", key_collection: "eu-west-1" });
      expect((await get(c, "/keymgmt/key/release-signing/kms?list=true")).body.data.keys).toEqual(["aws-eu"]);
      expect((await get(c, "/keymgmt/kms/aws-eu/key/release-signing")).body.data.purpose.split(",").sort()).toEqual(["sign", "verify"]);
    },
    async "step2 up"(c) {
      expect(await c.side.shownOutputs()).toMatchObject({ keyVersion: 2, distributedKeys: ["backup-wrapping", "release-signing"] });
      expect((await get(c, "/keymgmt/key/release-signing")).body.data).toMatchObject({ latest_version: 2, min_enabled_version: 2 });
      const writes = await c.writes();
      expect(writes.filter((w) => w.startsWith("POST ") && w.includes("release-signing"))).toEqual(["POST /v1/keymgmt/key/release-signing/rotate", "POST /v1/keymgmt/key/release-signing"]);
      // The wrapping key's distribution goes before the key and comes back after the new one (a
      // key's create writes it, then its deletion_allowed).
      expect(writes.filter((w) => w.includes("backup-wrapping"))).toEqual([
        "DELETE /v1/keymgmt/kms/aws-eu/key/backup-wrapping", "DELETE /v1/keymgmt/key/backup-wrapping",
        "POST /v1/keymgmt/key/backup-wrapping", "POST /v1/keymgmt/key/backup-wrapping", "POST /v1/keymgmt/kms/aws-eu/key/backup-wrapping",
      ]);
      expect((await get(c, "/keymgmt/key/backup-wrapping")).body.data).toMatchObject({ type: "rsa-4096", latest_version: 1 });
      expect((await get(c, "/keymgmt/kms/aws-eu/key/backup-wrapping")).body.data.purpose.split(",").sort()).toEqual(["unwrap", "wrap"]);
      expect((await get(c, "/keymgmt/key/legacy-signing")).status).toBe(404);
    },
    async "refresh after a delete"(c) {
      expect((await get(c, "/keymgmt/kms/aws-eu/key/release-signing")).status).toBe(200);
    },
    async destroy(c) {
      const order = c.deployed!.order;
      expect(order.indexOf("signing-in-aws")).toBeLessThan(order.indexOf("signing"));
      expect(order.indexOf("wrapping-in-aws")).toBeLessThan(order.indexOf("wrapping"));
      expect((await get(c, "/keymgmt/key/release-signing")).status).toBe(404);
      expect((await get(c, "/keymgmt/kms/aws-eu")).status).toBe(404);
    },
  },
};

describeExample("keymgmt", checks);
