// "Data at risk" in reviews of real `pulumi preview --json` output (docs/review.md): an alphabet a
// template uses, a key replaced, a store moved to another database, its schema dropped and a secondary
// activated are listed, an unused alphabet and a role's change are not;
// without --show-sames the alphabet is listed with what the preview could not see; --fail-on-risk exits 3.
// And drift: the review of a refresh that changes nothing, from its event log and from its --json.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { control, secretsApi } from "../support/emulator";
import { usePostgres } from "../support/postgres";
import { root } from "../support/dist";
import { CliStack, describeCli } from "./cli";

const bin = path.join(root, "dist/src/review/cli.js");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "review-risk-"));
let emu: Emulator;
beforeAll(async () => { emu = await startEmulator(); });
afterAll(async () => {
  await emu?.close();
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

  it("drift: a refresh's event log gives each object changed outside Pulumi, old → new, secrets hidden; its --json only what is gone", async () => {
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
      // --preview-only refuses --yes, which the tests' PULUMI_SKIP_CONFIRMATIONS stands for.
      const ask = { PULUMI_SKIP_CONFIRMATIONS: undefined };
      const log = path.join(work, "drift.jsonl");
      expect((await s.run(["refresh", "--preview-only", "--event-log", log], 300_000, ask)).code).toBe(0);
      const json = await s.run(["refresh", "--preview-only", "--json"], 300_000, ask);
      expect(json.code).toBe(0);
      fs.writeFileSync(path.join(work, "drift.json"), json.stdout);
    } finally {
      s.remove();
    }
    const fromLog = review(path.join(work, "drift.jsonl"));
    expect(fromLog.status, fromLog.stderr).toBe(0);
    expect(fromLog.stdout).toContain("## Pulumi refresh review: drift");
    expect(fromLog.stdout).toContain("**Drift:** 1 gone from the server, 1 changed outside Pulumi.");
    expect(fromLog.stdout).toContain("#### changed outside Pulumi: `digits` (secrets:TransformAlphabet) `transform/alphabet/digits`");
    expect(fromLog.stdout).toContain('- `alphabet`: `"0123456789"` → `"0123456789AB"`');
    expect(fromLog.stdout).toContain("#### gone from the server: `spare` (secrets:TransformAlphabet)");
    expect(fromLog.stdout).not.toContain("Data at risk");
    const fromJson = review(path.join(work, "drift.json")).stdout;
    expect(fromJson).toContain("**Drift:** 1 gone from the server, 1 changed outside Pulumi.");
    expect(fromJson).toContain("carries no new values");
    expect(fromJson).not.toContain("0123456789AB");
  }, 300_000);
});
