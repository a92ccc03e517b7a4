// examples/transform on a real PostgreSQL: the card number is encoded and decoded (both outputs
// secret), the store's tables are made in the database; step2 rotates the tokenization key in the
// database, adds a role, moves the fpe transformation to a new template (the round trip still
// holds, with it) and makes the email tokenization anew (exportable), the role naming it replaced
// with it; destroy removes everything.
import { expect } from "vitest";
import { secretsApi } from "../../support/emulator";
import { describeExample } from "../example";
import type { Context, ExampleChecks } from "../lifecycle";

const CARD = "4111-1111-1111-1111";
const db = (c: Context) => {
  if (!c.prepared.postgres) throw new Error("examples/transform runs with a PostgreSQL (cli.json postgres)");
  return c.prepared.postgres;
};

const checks: ExampleChecks = {
  after: {
    async up(c) {
      expect(await c.side.outputs()).toMatchObject({ encodedCard: "[secret]", decodedCard: "[secret]" });
      const shown = await c.side.shownOutputs();
      expect(String(shown.encodedCard)).toMatch(/^\d{4}-\d{4}-\d{4}-\d{4}$/);
      expect(shown.encodedCard).not.toBe(CARD);
      expect(shown.decodedCard).toBe(CARD);
      expect(await c.side.stored()).not.toContain(CARD);
      const tables = await db(c).query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'transform' ORDER BY 1");
      expect(tables.map((t) => t.table_name)).toEqual(["transform_keys", "transform_tokens"]);
    },
    async "step2 up"(c) {
      expect((await c.side.shownOutputs()).tokenizationKeyVersion).toBe(2);
      expect((await secretsApi(c.emu, "GET", "/transform/role/support")).body.data.transformations).toEqual(["masked-card"]);
      const ring = await db(c).query<{ ring: { latest_version: number } }>("SELECT ring FROM transform.transform_keys WHERE transformation = 'ssn'");
      expect(ring[0]!.ring.latest_version).toBe(2);
      expect((await secretsApi(c.emu, "GET", "/transform/transformation/card")).body.data.templates).toEqual(["card-number-v2"]);
      expect((await c.side.shownOutputs()).decodedCard).toBe(CARD);
      expect((await secretsApi(c.emu, "GET", "/transform/transformation/email")).body.data).toMatchObject({ type: "tokenization", mapping_mode: "exportable" });
      // Made anew, deleted first (the same path), and the crm role naming it with it: the role goes
      // first (the service refuses to delete a transformation a role names) and comes back after.
      const email = (await c.writes()).filter((w) => w.includes("/email") || w.includes("/role/crm"));
      expect(email).toEqual(["DELETE /v1/transform/role/crm", "DELETE /v1/transform/transformation/email",
        "POST /v1/transform/transformations/tokenization/email", "POST /v1/transform/role/crm"]);
      expect((await secretsApi(c.emu, "GET", "/transform/role/crm")).body.data.transformations).toEqual(["email"]);
    },
    async destroy(c) {
      for (const p of ["/transform/role/payments", "/transform/role/crm", "/transform/transformation/ssn", "/transform/stores/tokens", "/transform/template/card-number-v2", "/transform/transformation/email", "/transform/alphabet/card-digits"]) {
        expect((await secretsApi(c.emu, "GET", p)).status, p).toBe(404);
      }
    },
  },
};

describeExample("transform", checks);
