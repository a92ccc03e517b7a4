// Testing an imported program (docs/testing.md, "Testing an imported program"): the import's
// `--seed FILE` holds what it read (no secret in it), and testStack's `seed` puts it into the test's
// emulator under the server's own ids, so the program's first up takes every object over as it
// did on the server: nothing created anew, the ids its adoptIds name found, the key at its version.
// Objects of every kind the import reads (the kinds come from KIND_NAMES; NOT_SEEDED names the
// ones that cannot be, and why).
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import type * as emulatorTypes from "../../src/emulator";
import type * as importTypes from "../../src/import/cli";
import type * as installedTypes from "../../src/engine/installed";
import type * as kindsTypes from "../../src/kinds";
import { fromDist } from "../support/dist";
import { control, requests, runApi } from "../support/emulator";
import { importedConfig } from "../support/imported";
import { seedEveryKind, WRITE_ONLY } from "../support/seed-import";
import { openStacks, testStack } from "../support/testing";

const { startEmulator } = fromDist<typeof emulatorTypes>("src/emulator/index.js");
const { main } = fromDist<typeof importTypes>("src/import/cli.js");
const { installedProject } = fromDist<typeof installedTypes>("src/engine/installed.js");
const { KIND_NAMES, kindDefinition } = fromDist<typeof kindsTypes>("src/kinds.js");

/** Kinds the import reads whose objects no test's emulator can hold, each with the reason. */
const NOT_SEEDED: Record<string, string> = {
  "secrets:ReplicationPathsFilter": "a paths filter is keyed by the cluster id of a secondary activated against the primary, " +
    "and no secondary of the test's emulator has the server's cluster id (docs/testing.md)",
};

/** Every kind whose objects pulumi-svc-import reads (its definition does not say `none`). */
async function importedKinds(): Promise<string[]> {
  const out: string[] = [];
  for (const kind of KIND_NAMES) if (!("none" in (await kindDefinition(kind))!.discover!)) out.push(kind);
  return out;
}

const open = openStacks();
const emulators: emulatorTypes.Emulator[] = [];
const projects: { remove(): void }[] = [];
afterAll(async () => {
  for (const e of emulators.splice(0)) await e.close();
  for (const p of projects.splice(0)) p.remove();
});

/** The built package's emulator (useEmulator starts the source's), one for each server a test imports from. */
async function emulator(): Promise<emulatorTypes.Emulator> {
  const e = await startEmulator();
  emulators.push(e);
  return e;
}

describe("testStack of an imported program", { timeout: 180_000 }, () => {
  it("seeded with what the import read, the program's first up takes every object over under the server's ids, writing only the values the program gives", async () => {
    // The server: objects of every kind the import takes over, made by raw requests.
    const server = await emulator();
    const seeded = await seedEveryKind(server);
    // An enabled configuration too: its destination is out of any test's reach, and every write of
    // it verifies (the server here sends no verification, as the test's emulator will not).
    await control(server, "PUT", "/settings", { verifyDestinations: false });
    const enabled = await runApi(server, "POST", `/workspaces/${server.workspaceId}/notification-configurations`, {
      data: { type: "notification-configurations", attributes: { name: "deploys", "destination-type": "generic", enabled: true, url: "https://hooks.example.invalid/deploys", triggers: ["run:completed"] } },
    });
    expect(enabled.status).toBe(201);
    const project = installedProject();
    projects.push(project);
    const seedFile = path.join(project.dir, "seed.json");
    const env = { SVC_SECRETS_URL: server.secretsUrl, SVC_SECRETS_TOKEN: server.tokens.secretsRoot, SVC_RUN_URL: server.runUrl, SVC_RUN_TOKEN: server.tokens.runAdmin };
    const imported = await main(["--workspace", server.workspaceId, "--out", project.dir, "--seed", seedFile], () => {}, env);
    expect(imported.out).toContain(`Wrote ${seedFile}: what was read, for a test of the program`);
    // No secret in the seed: values the servers never return are not read, the tokens are not the file's.
    const seedText = fs.readFileSync(seedFile, "utf8");
    for (const secret of [...Object.values(WRITE_ONLY), seeded.registryToken, ...Object.values(server.tokens)]) expect(seedText).not.toContain(secret);
    // Objects of every kind the import reads, but those no emulator can hold.
    const kinds = await importedKinds();
    for (const kind of Object.keys(NOT_SEEDED)) expect(kinds, `NOT_SEEDED names ${kind}, which the import does not read`).toContain(kind);
    const objects = (JSON.parse(seedText) as { objects: { kind: string }[] }).objects;
    expect([...new Set(objects.map((o) => o.kind))].sort()).toEqual(kinds.filter((k) => !(k in NOT_SEEDED)).sort());
    const program = fs.readFileSync(path.join(project.dir, "index.ts"), "utf8");
    fs.writeFileSync(path.join(project.dir, "index.js"), ts.transpileModule(program, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText);

    // The test's own emulators. The registry takes only a management token it made for its access
    // config, so the test makes one there and gives it as the program's config (docs/testing.md).
    const config = async (emu: emulatorTypes.Emulator) => {
      const token = (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" })).token;
      return Object.fromEntries(Object.entries({ ...importedConfig(seeded), registryAccessConfigToken: token }).map(([k, v]) => [k, { secret: v }]));
    };

    // Without the seed the takeovers by id find nothing.
    const bareEmu = await emulator();
    const bare = await testStack({ dir: project.dir, cwd: project.dir, emulator: bareEmu, config: await config(bareEmu) });
    open.push(bare);
    expect(((await bare.up().catch((e: Error) => e)) as Error).message).toMatch(/adoptId \S+: there is no \w+ with this id on the server/);

    const emu = await emulator();
    const stack = await testStack({ dir: project.dir, cwd: project.dir, emulator: emu, seed: seedFile, config: await config(emu) });
    open.push(stack);
    await control(emu, "DELETE", "/requests");
    const up = await stack.up();
    expect(up.changes).toEqual({ create: objects.length });
    // Taken over, not made: every write is one of a value the program gives and the server never returns.
    const writes = (await requests(emu)).filter((q) => !["GET", "LIST"].includes(q.method)).map((q) => `${q.method} ${q.path}`);
    expect([...new Set(writes)].sort()).toEqual([
      `PATCH /api/v2/notification-configurations/${seeded.hookId}`,
      `POST /v1/identity/mfa/method/dualfactor/${seeded.methodId}`,
      "POST /v1/keymgmt/kms/aws-east",
      "POST /v1/registry/config/access",
      "POST /v1/sys/plugins/catalog/database/acme-db",
      "POST /v1/directory/config",
      "POST /v1/transform/stores/tokens-db",
    ].sort());
    // The server's ids, the key at the server's version.
    expect((await stack.request("run", "GET", `/notification-configurations/${seeded.hookId}`)).status).toBe(200);
    expect((await stack.request("secrets", "GET", `/identity/entity-alias/id/${seeded.aliasId}`)).status).toBe(200);
    expect((await stack.request("secrets", "GET", "/keymgmt/key/signing")).body.data.latest_version).toBe(2);
    expect((await stack.request("run", "GET", `/notification-configurations/${enabled.body.data.id}`)).body.data.attributes.enabled).toBe(true);
    expect((await stack.preview()).changes).toEqual({ same: objects.length });
  });

  it("a file that is not a seed is refused with one line naming it", async () => {
    const file = path.join(fs.mkdtempSync(path.join(require("node:os").tmpdir(), "seed-")), "seed.json");
    fs.writeFileSync(file, JSON.stringify({ objects: [] }));
    await expect(testStack({ program: () => ({}), seed: file })).rejects.toThrow(`testStack: seed ${file} is not a file pulumi-svc-import --seed wrote (its format is "pulumi-svc seed 1")`);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});
