// The state backends teams share, under the real Pulumi CLI: PostgreSQL (`postgres://`, a real
// server) and an S3-compatible object store (moto's server from PyPI). The file backend is
// what the examples' lifecycles use. One example with secrets per backend: up, a second up without changes,
// destroy, and everything the backend stored (every row of every table, every object of the
// bucket) scanned for every secret the program used. docs/scale.md, "Shared state backends".
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { gunzipSync } from "node:zlib";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { needsMoto, startMoto } from "../support/moto";
import { needsPostgres, startPostgres } from "../support/postgres";
import { CLI_PASSPHRASE, CliStack, describeCli, ops } from "./cli";
import { examples, outputValues, prepareExample, serviceCall, type Prepared, type ServiceRequest } from "./expectations";
import { exampleSecrets, leakedPlaces, SECRET_SIG, secretMaterial } from "./secret-scan";
import { useEmulator } from "../support/emulator";

/** A state backend the test started, and what it stored: item name → its text, as stored and decoded. */
interface Backend {
  url: string;
  env: Record<string, string>;
  /** The backend's own credentials: they must not end up in the state either. */
  secrets: [string, string[]][];
  stored(): Promise<Map<string, string>>;
  stop(): Promise<void>;
}

/** A stored blob as text; the CLI gzips state when PULUMI_DIY_BACKEND_GZIP is set. */
const blobText = (b: Buffer) => (b[0] === 0x1f && b[1] === 0x8b ? gunzipSync(b) : b).toString("utf8");

const secretWord = () => randomBytes(12).toString("hex");

async function postgresBackend(): Promise<Backend> {
  const pg = await startPostgres();
  // A role of its own owning the state database, as a team would give the CLI.
  const role = { username: "pulumi_state_user", password: secretWord() };
  await pg.query(`CREATE ROLE ${role.username} LOGIN PASSWORD '${role.password}'`);
  await pg.query(`CREATE DATABASE pulumi OWNER ${role.username}`);
  return {
    // The test server has no TLS, which lib/pq's default sslmode refuses. The password goes in
    // PGPASSWORD: in the URL, `pulumi login` would print it and credentials.json keep it.
    url: `postgres://${role.username}@127.0.0.1:${pg.port}/pulumi?sslmode=disable`,
    env: { PGPASSWORD: role.password },
    secrets: [["PostgreSQL role password", [role.password]], ["PostgreSQL superuser password", [pg.admin.password]]],
    async stored() {
      const client = new Client({ connectionString: pg.url(pg.admin.username, pg.admin.password, "pulumi") });
      await client.connect();
      try {
        const out = new Map<string, string>();
        const tables = (await client.query<{ name: string }>(
          "SELECT table_schema || '.' || table_name AS name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1",
        )).rows.map((t) => t.name);
        // What CLI v3.259 creates (pkg/backend/diy/postgres): one table, a row per blob.
        expect(tables).toEqual(["public.pulumi_state"]);
        for (const table of tables) {
          const rows = (await client.query<{ row: { key: string; data: { data: string } } }>(`SELECT row_to_json(t) AS row FROM ${table} t`)).rows;
          for (const { row } of rows) {
            // Each blob is stored base64-encoded in a JSON column: scan the row and the blob.
            out.set(`${table} ${row.key}`, `${JSON.stringify(row)}\n${blobText(Buffer.from(row.data.data, "base64"))}`);
          }
        }
        return out;
      } finally {
        await client.end();
      }
    },
    stop: () => pg.stop(),
  };
}

async function s3Backend(): Promise<Backend> {
  const moto = await startMoto();
  const bucket = "pulumi-state";
  await moto.createBucket(bucket);
  const keys = { id: "AKIDPULUMISVCTEST", secret: secretWord() };
  return {
    // The AWS SDK v2 form; CLI v3.259 also translates the v1 form (endpoint=127.0.0.1:PORT&disableSSL=true&s3ForcePathStyle=true).
    url: `s3://${bucket}?endpoint=${moto.endpoint}&use_path_style=true&region=us-east-1`,
    env: { AWS_ACCESS_KEY_ID: keys.id, AWS_SECRET_ACCESS_KEY: keys.secret, AWS_REGION: "us-east-1" },
    secrets: [["AWS secret access key", [keys.secret]]],
    async stored() {
      const out = new Map<string, string>();
      for (const [key, body] of await moto.objects(bucket)) out.set(`s3://${bucket}/${key}`, blobText(body));
      return out;
    },
    stop: () => moto.stop(),
  };
}

const EXAMPLE = "quickstart";
/** What the example's up leaves on the services, read with an all-powerful token. */
const ON_SERVICES: ServiceRequest[] = [
  { service: "secrets", method: "GET", path: "/transform/alphabet/digits" },
  { service: "secrets", method: "GET", path: "/transform/template/us-ssn" },
  { service: "run", method: "GET", path: "/notification-configurations/{output.hookId}" },
];

const { emu } = useEmulator({ reset: false, env: false });

describeCli("shared state backends under the real Pulumi CLI", () => {
  describeBackend("PostgreSQL (postgres://, a real server)", needsPostgres, postgresBackend);
  describeBackend("S3 (moto's S3-compatible server)", needsMoto, s3Backend);
});

/** `needs` gates the backend's tests on its server (test/support/real.ts); the other backend's run. */
function describeBackend(title: string, needs: () => boolean, open: () => Promise<Backend>): void {
  describe(title, () => {
    const can = needs();
    const exp = examples().find((e) => e.name === EXAMPLE)!.expectations!;
    let backend: Backend;
    let prepared: Prepared;
    let stack: CliStack;
    let serviceIds: Record<string, string> = {};
    /** The state's secret texts, gathered while resources exist (an empty state after destroy has none). */
    const material = new Map<string, string[]>();

    beforeAll(async () => {
      if (!can) return;
      backend = await open();
      prepared = await prepareExample(exp, emu);
      stack = await CliStack.create({
        project: exp.project, program: path.join(root, "dist/examples", EXAMPLE, "index.js"),
        config: prepared.config, secretConfig: prepared.secretConfig, env: backend.env, backendUrl: backend.url, passphrase: true,
      });
    }, 120_000);

    afterAll(async () => {
      stack?.remove();
      await prepared?.close();
      await backend?.stop();
    });

    /** Every stored item in which a secret of the program, the emulator or the backend stands in plaintext. */
    async function expectNoPlaintext(): Promise<Map<string, string>> {
      for (const [place, values] of await secretMaterial(stack, prepared.config)) material.set(place, values);
      expect(material.get("ci-hook.token")?.length, "the hook's secret token was read back").toBeGreaterThan(0);
      const secrets = new Map([
        ...exampleSecrets(exp, emu, prepared), ...material, ...backend.secrets,
        ["the passphrase", [CLI_PASSPHRASE]] as [string, string[]],
      ]);
      const stored = await backend.stored();
      const leaks = [...stored].flatMap(([item, text]) => leakedPlaces(text, secrets).map((place) => `${place} in ${item}`));
      expect(leaks, "secrets in plaintext in the backend").toEqual([]);
      return stored;
    }

    it(`up deploys examples/${EXAMPLE}; its stack lives in the backend, its objects on the services`, async () => {
      const r = await stack.run(["up", "--yes", "--skip-preview"]);
      if (r.code !== 0) throw new Error(`up failed:\n${r.stdout}\n${r.stderr}`);
      expect(r.stdout).toMatch(new RegExp(`${exp.create.length + 1} created`));
      const outputs = await stack.outputs(false);
      expect(outputs).toMatchObject(exp.outputs ?? {});
      serviceIds = outputValues(outputs);
      for (const q of ON_SERVICES) expect((await serviceCall(emu, q, serviceIds)).status, `${q.method} ${q.path}`).toBe(200);
      const names = [...(await backend.stored()).keys()];
      expect(names).toContainEqual(expect.stringMatching(`\\.pulumi/stacks/${exp.project}/dev\\.json$`));
      // Nothing went to the stack folder's file backend instead.
      expect(fs.readdirSync(path.join(stack.dir, "backend"))).toEqual([]);
    });

    it("a second up changes nothing", async () => {
      const r = await stack.up();
      if (r.code !== 0) throw new Error(`up failed:\n${r.text}`);
      expect(ops(r)).toEqual({});
    });

    it("no secret in plaintext in anything the backend stored; the scan sees the state's plain text and ciphertext", async () => {
      const stored = [...(await expectNoPlaintext()).values()].join("\n");
      // The scan reads the state itself, so a secret there could not go unseen.
      expect(stored).toContain(`urn:pulumi:dev::${exp.project}::`);
      for (const v of Object.values(exp.outputs ?? {})) if (typeof v === "string") expect(stored).toContain(v);
      expect(stored).toContain(SECRET_SIG);
      expect(stored).toContain("\"ciphertext\"");
    });

    it("destroy removes everything; the backend's history, scanned again, holds no secret either", async () => {
      const r = await stack.destroy();
      if (r.code !== 0) throw new Error(`destroy failed:\n${r.text}`);
      expect(Object.values(ops(r)).filter((op) => op === "delete")).toHaveLength(exp.create.length);
      expect((await stack.state()).resources ?? []).toEqual([]);
      for (const q of ON_SERVICES) expect((await serviceCall(emu, q, serviceIds)).status, `${q.method} ${q.path}`).toBe(404);
      const stored = await expectNoPlaintext();
      // Every update's checkpoint is kept as history: the secrets of the earlier ups were scanned too.
      expect([...stored.keys()].filter((k) => k.includes(`.pulumi/history/${exp.project}/dev/`)).length).toBeGreaterThanOrEqual(3);
    });
  });
}
