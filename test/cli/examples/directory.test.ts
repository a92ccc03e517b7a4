// examples/directory: the role's password binds, the borrowed account is out of the set; step2
// rotates the role and adds an account in place, the loan staying; a loan checked in elsewhere is
// dropped by refresh and borrowed again; destroy checks the account in before the set goes.
import { expect } from "vitest";
import { control, secretsApi } from "../../support/emulator";
import { describeExample } from "../example";
import type { Context, ExampleChecks } from "../lifecycle";

const get = (c: Context, path: string) => secretsApi(c.emu, "GET", path);
const binds = async (c: Context, name: string, password: string) => (await control<{ ok: boolean }>(c.emu, "POST", "/directory/bind", { name, password })).ok;
const lent = async (c: Context, account: string) => !(await get(c, "/directory/library/deployers/status")).body.data[account].available;
let appPassword = "";

const checks: ExampleChecks = {
  after: {
    async up(c) {
      expect(await c.side.outputs()).toMatchObject({ appPassword: "[secret]", borrowedPassword: "[secret]", leaseSeconds: 3600 });
      expect(await lent(c, "pool-1")).toBe(true);
      // The passwords are only in state encrypted; prove them through the service.
      appPassword = (await get(c, "/directory/creds/app")).body.data.current_password;
      expect(await binds(c, "svc-app", appPassword)).toBe(true);
    },
    async "step2 up"(c) {
      expect(await c.side.shownOutputs()).toMatchObject({ poolAccounts: ["pool-1", "pool-2"], rotation: { rotated: true, warnings: [] } });
      expect(await binds(c, "svc-app", appPassword), "the rotated role's old password").toBe(false);
      expect(await lent(c, "pool-1")).toBe(true);
    },
    async destroy(c) {
      expect(c.deployed!.order[0]).toBe("deployer");
      expect((await get(c, "/directory/library/deployers")).status).toBe(404);
      expect((await get(c, "/directory/config")).status).toBe(404);
    },
  },
  extra: [{
    title: "refresh drops a loan checked in elsewhere; the next up borrows again",
    async run(c) {
      expect((await secretsApi(c.emu, "POST", "/directory/library/manage/deployers/check-in", { service_account_names: ["pool-1"] })).status).toBeLessThan(300);
      expect(await c.side.refresh()).toMatchObject({ deployer: "delete" });
      const d = await c.side.up();
      expect(d.ops.deployer).toBe("create");
      expect(await lent(c, "pool-1")).toBe(true);
      return d;
    },
  }],
};

describeExample("directory", checks);
