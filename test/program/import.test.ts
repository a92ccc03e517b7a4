// pulumi-svc-import end to end through the engine double, in a user's project (the package under
// node_modules): objects made by raw requests are found, the written program compiles under
// strict TypeScript and holds no secret, its first up takes every object over (nothing created
// anew, nothing written but the write-only values given, the key keeps its versions), the next
// preview has nothing to do, and destroy removes them. test/package/install.test.ts runs the same
// program under the real CLI.
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { installedProject } from "../../src/engine/installed";
import { main } from "../../src/import/cli";
import { useProgram } from "../support/program";
import { seedEveryKind, WRITE_ONLY, type Seeded } from "../support/seed-import";
import { importedConfig, typeErrors } from "../support/imported";

let installed: ReturnType<typeof installedProject> | undefined;
let seeded: Seeded;
const project = () => installed!.dir;

const { emu, run, writes, clearRequests, get, runApi, stateText } = useProgram({
  program: () => path.join(project(), "index.js"), cwd: project, project: "imported", secretsToken: "secretsRoot",
  setup: async (p) => {
    installed = installedProject();
    seeded = await seedEveryKind(p.emu);
  },
  secretConfig: () => Object.fromEntries(Object.entries(importedConfig(seeded)).map(([k, v]) => [`imported:${k}`, v])),
  teardown: () => installed?.remove(),
});

describe("pulumi-svc-import through the engine double", () => {
  it("writes a program that takes every object over on the first up, changes nothing after, and destroys them", async () => {
    const env = { SVC_SECRETS_URL: emu.secretsUrl, SVC_SECRETS_TOKEN: emu.tokens.secretsRoot, SVC_RUN_URL: emu.runUrl, SVC_RUN_TOKEN: emu.tokens.runAdmin };
    const progress: string[] = [];
    const r = await main(["--workspace", emu.workspaceId, "--out", project()], (l) => progress.push(l), env);
    expect(r.out).toContain("21 objects to take over");
    expect(progress).toContain("pulumi-svc-import: not imported: runs:Run: runs are actions, not configuration: a run that happened is history, and declaring one starts a new run");
    const program = fs.readFileSync(path.join(project(), "index.ts"), "utf8");
    const script = fs.readFileSync(path.join(project(), "pulumi-config.sh"), "utf8");
    for (const secret of [...Object.values(WRITE_ONLY), seeded.registryToken, ...Object.values(emu.tokens)]) {
      expect(program).not.toContain(secret);
      expect(script).not.toContain(secret);
      expect(r.out).not.toContain(secret);
    }
    // References are references, so the engine orders the objects.
    expect(program).toContain("transformations: [accountFpeTransformation.name, cardTokenTokenizationTransformation.name, ssnMaskMaskingTransformation.name]");
    expect(program).toContain(`adoptId: ${JSON.stringify(seeded.hookId)}`);
    for (const key of Object.keys(importedConfig(seeded))) expect(script).toMatch(new RegExp(`^(# )?pulumi config set --(secret|plaintext) ${key} '(<VALUE>|\\[|\\{)`, "m"));
    expect(typeErrors(path.join(project(), "index.ts"))).toEqual([]);
    fs.writeFileSync(path.join(project(), "index.js"), ts.transpileModule(program, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText);

    await clearRequests();
    const up = await run("up");
    expect(up.error).toBeUndefined();
    expect(up.steps.map((s) => s.op)).toEqual(Array(21).fill("create"));
    const ids = Object.fromEntries((JSON.parse(stateText()) as { resources: { urn: string; id: string }[] }).resources.map((r) => [r.urn.split("::").pop(), r.id]));
    expect(ids).toMatchObject({ "ci-hook": seeded.hookId, carol: seeded.aliasId, "dual-factor-method": seeded.methodId, payments: "transform/role/payments" });
    // Only the write-only values given were written; nothing created anew, nothing rotated.
    expect((await writes()).sort()).toEqual([
      `PATCH /api/v2/notification-configurations/${seeded.hookId}`,
      "POST /v1/keymgmt/kms/aws-east",
      "POST /v1/registry/config/access",
      "POST /v1/sys/plugins/catalog/database/acme-db",
      "POST /v1/directory/config",
      "POST /v1/transform/stores/tokens-db",
    ].sort());
    expect((await get("/keymgmt/key/signing")).body.data.latest_version).toBe(2);
    expect((await runApi("GET", `/workspaces/${emu.workspaceId}/notification-configurations`)).body.data).toHaveLength(1);

    const again = await run("preview");
    expect(again.error).toBeUndefined();
    expect(again.steps.map((s) => s.op)).toEqual(Array(21).fill("same"));

    const destroy = await run("destroy");
    expect(destroy.error).toBeUndefined();
    for (const p of ["/transform/role/payments", "/transform/alphabet/hexits", "/keymgmt/key/signing", "/registry/roles/deployer", `/identity/entity-alias/id/${seeded.aliasId}`,
      "/directory/roles/app", "/directory/library/pool", "/directory/config", "/transform/stores/tokens-db"]) {
      expect((await get(p)).status, p).toBe(404);
    }
    expect((await runApi("GET", `/workspaces/${emu.workspaceId}/notification-configurations`)).body.data).toEqual([]);
  }, 180_000);
});
