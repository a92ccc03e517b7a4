// "Data at risk" in reviews of real `pulumi preview --json` output (docs/review.md): an alphabet a
// template uses, a key replaced, a store moved to another database, its schema dropped and a secondary
// activated are listed, an unused alphabet and a role's change are not;
// without --show-sames the alphabet is listed with what the preview could not see; --fail-on-risk exits 3.
// And drift: the review of what a refresh read, from `pulumi preview --refresh --show-sames --json`
// run by a plain CLI (no PULUMI_DEBUG_COMMANDS, as a user's shell has it), from a refresh's event
// log (which the CLI offers only with that variable) and from a refresh's --json.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, it } from "vitest";
import { control, secretsApi, useEmulator } from "../support/emulator";
import { usePostgres } from "../support/postgres";
import { root } from "../support/dist";
import { CliStack, describeCli } from "./cli";

const bin = path.join(root, "dist/src/review/cli.js");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "review-risk-"));
const { emu } = useEmulator({ reset: false, env: false });
afterAll(async () => {
  fs.rmSync(work, { recursive: true, force: true });
});

const review = (file: string, ...args: string[]) => spawnSync(process.execPath, [bin, ...args, file], { encoding: "utf8" });
const section = (text: string) => text.split("### ⚠️ Data at risk")[1]?.split("\n\n**")[0] ?? "";

describeCli("data at risk in reviews of real previews", () => {
  // The program's store connects to a database when written.
  const db = usePostgres({ username: "risk_tokens", password: "risk-store-pw" });
  const storeConfig = () => ({
    config: { "risk:pgPort": String(db().port), "risk:pgAdmin": db().admin.username },
    secretConfig: { "risk:storePassword": "risk-store-pw", "risk:pgAdminPassword": db().admin.password },
  });
  it("lists what loses data, never what is harmless; --show-sames tells used from unused; --fail-on-risk exits 3", async () => {
    const s = await CliStack.create({
      project: "review-risk", program: path.join(__dirname, "programs/risk/index.js"),
      config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, ...storeConfig().config },
      secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsRoot, ...storeConfig().secretConfig },
    });
    try {
      expect((await s.up()).code).toBe(0);
      await s.setConfig({ "risk:step": "2" });
      for (const [name, extra] of [["sames", ["--show-sames"]], ["plain", []]] as const) {
        fs.writeFileSync(path.join(work, `${name}.json`), (await s.ok(["preview", "--json", ...extra])).stdout);
      }
    } finally {
      s.remove();
    }
    const sames = review(path.join(work, "sames.json"));
    expect(sames.status, sames.stderr).toBe(0);
    const risk = section(sames.stdout);
    expect(risk).toContain("- `digits` (secrets:TransformAlphabet): `alphabet` changed: values encoded through a template that uses it no longer decode");
    expect(risk).toContain("- `signing` (secrets:KeymgmtKey): replaced: every version of the key's material is destroyed");
    expect(risk).toContain("- `tokens-db` (secrets:TransformStore): `connectionString` changed: the tokens in the database it pointed at become unreachable for the transformations that use it");
    expect(risk).toContain("- `west` (secrets:ReplicationPerformanceSecondary): created: activating the secondary wipes every mount and object the cluster held");
    expect(risk).toContain("- `tokens-schema` (secrets:TransformStoreSchema): deleted: re-creating the schema in the store's database can leave the tokens kept under the old one unreachable");
    expect(risk).not.toContain("west-token");
    expect(risk).not.toContain("spare");
    expect(risk).not.toContain("payments");
    expect(sames.stdout).toContain("### ⚠️ Data at risk: 5 changes lose or strand data");
    // Without the unchanged template in the preview, the alphabet's use cannot be seen: said so.
    const plain = section(review(path.join(work, "plain.json")).stdout);
    expect(plain).toContain("(if an unchanged TransformTemplate uses it: this preview lists no unchanged resources; make it with --show-sames to know)");
    expect(review(path.join(work, "sames.json"), "--fail-on-risk").status).toBe(3);
  }, 300_000);

  it("drift: a plain CLI's preview --refresh gives each object changed outside Pulumi, old → new, outputs too (a key rotated by hand); so does a refresh's event log; its --json only what is gone", async () => {
    const s = await CliStack.create({
      project: "review-drift", program: path.join(__dirname, "programs/risk/index.js"),
      config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "risk:step": "1", ...storeConfig().config },
      secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsRoot, ...storeConfig().secretConfig },
    });
    try {
      // The first test's objects are still there (a removed stack leaves them).
      await control(emu, "POST", "/reset");
      expect((await s.up()).code).toBe(0);
      expect((await secretsApi(emu, "POST", "/transform/alphabet/digits", { alphabet: "0123456789AB" })).status).toBeLessThan(300);
      expect((await secretsApi(emu, "DELETE", "/transform/alphabet/spare")).status).toBeLessThan(300);
      // Rotated by hand: only an output changes (latestVersion), which the engine's refresh calls `same`.
      expect((await secretsApi(emu, "POST", "/keymgmt/key/signing/rotate")).status).toBeLessThan(300);
      // As docs/review.md writes it, with a CLI as users have it: the tests' stacks set
      // PULUMI_DEBUG_COMMANDS (for --event-log), a user's shell does not.
      const plain = { PULUMI_DEBUG_COMMANDS: undefined };
      const refreshed = await s.run(["preview", "--refresh", "--show-sames", "--json"], 300_000, plain);
      expect(refreshed.code, refreshed.stderr).toBe(0);
      fs.writeFileSync(path.join(work, "drift.json"), refreshed.stdout);
      // --preview-only refuses --yes, which the tests' PULUMI_SKIP_CONFIRMATIONS stands for.
      const ask = { PULUMI_SKIP_CONFIRMATIONS: undefined };
      const log = path.join(work, "drift.jsonl");
      // What the docs once said to run: a plain CLI does not know the flag.
      const hidden = await s.run(["refresh", "--preview-only", "--event-log", log], 300_000, { ...ask, ...plain });
      expect(hidden.code).not.toBe(0);
      expect(hidden.stderr).toContain("unknown flag: --event-log");
      expect((await s.run(["refresh", "--preview-only", "--event-log", log], 300_000, ask)).code).toBe(0);
      const json = await s.run(["refresh", "--preview-only", "--json"], 300_000, ask);
      expect(json.code).toBe(0);
      fs.writeFileSync(path.join(work, "refresh.json"), json.stdout);
    } finally {
      s.remove();
    }
    for (const [name, args] of [["preview --refresh", ["--drift", "drift.json"]], ["event log", ["drift.jsonl"]]] as const) {
      const r = review(path.join(work, args[args.length - 1]!), ...args.slice(0, -1));
      expect(r.status, `${name}: ${r.stderr}`).toBe(0);
      expect(r.stdout, name).toContain("## Pulumi refresh review: drift");
      expect(r.stdout, name).toContain("**Drift:** 1 gone from the server, 2 changed outside Pulumi.");
      expect(r.stdout, name).toContain("#### changed outside Pulumi: `digits` (secrets:TransformAlphabet) `transform/alphabet/digits`");
      expect(r.stdout, name).toContain('- `alphabet`: `"0123456789"` → `"0123456789AB"`');
      expect(r.stdout, name).toContain("#### changed outside Pulumi: `signing` (secrets:KeymgmtKey) `keymgmt/key/signing`");
      expect(r.stdout, name).toContain("- `latestVersion`: `1` → `2`");
      expect(r.stdout, name).toContain("#### gone from the server: `spare` (secrets:TransformAlphabet)");
      expect(r.stdout, name).not.toContain("Data at risk");
    }
    // The same JSON without --drift reviews the plan, made against what the refresh read.
    const plan = review(path.join(work, "drift.json")).stdout;
    expect(plan).toContain("## Pulumi preview review");
    expect(plan).toContain("**Drift:** the preview refreshed first and found 2 changed outside Pulumi, 1 gone from the server;");
    expect(plan).toMatch(/#### create: `spare` \(secrets:TransformAlphabet\)/);
    const fromJson = review(path.join(work, "refresh.json")).stdout;
    expect(fromJson).toContain("**Drift:** 1 gone from the server, 1 changed outside Pulumi.");
    expect(fromJson).toContain("carries no new values");
    expect(fromJson).toContain("`pulumi preview --refresh --show-sames --json > drift.json`, then `pulumi-svc-review --drift drift.json`");
    expect(fromJson).not.toContain("0123456789AB");
  }, 300_000);
});
