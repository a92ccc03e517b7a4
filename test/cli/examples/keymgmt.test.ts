// examples/keymgmt: the key is distributed to the provider with its purposes; step2 rotates it and
// disables version 1 in place; the distribution is recreated after an out-of-band removal, and
// destroy removes it before the key and the provider.
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
      expect(await c.side.shownOutputs()).toMatchObject({ keyVersion: 2, distributedKeys: ["release-signing"] });
      expect((await get(c, "/keymgmt/key/release-signing")).body.data).toMatchObject({ latest_version: 2, min_enabled_version: 2 });
      expect((await c.writes()).filter((w) => w.startsWith("POST "))).toEqual(["POST /v1/keymgmt/key/release-signing/rotate", "POST /v1/keymgmt/key/release-signing"]);
    },
    async "refresh after a delete"(c) {
      expect((await get(c, "/keymgmt/kms/aws-eu/key/release-signing")).status).toBe(200);
    },
    async destroy(c) {
      expect(c.deployed!.order[0]).toBe("signing-in-aws");
      expect((await get(c, "/keymgmt/key/release-signing")).status).toBe(404);
      expect((await get(c, "/keymgmt/kms/aws-eu")).status).toBe(404);
    },
  },
};

describeExample("keymgmt", checks);
