// "Data at risk" in reviews of real `pulumi preview --json` output (docs/review.md): an alphabet a
// template uses and a key replaced are listed, an unused alphabet and a role's change are not;
// without --show-sames the alphabet is listed with what the preview could not see; --fail-on-risk exits 3.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
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
  it("lists what loses data, never what is harmless; --show-sames tells used from unused; --fail-on-risk exits 3", async () => {
    const s = await CliStack.create({
      project: "review-risk", program: path.join(__dirname, "programs/risk/index.js"),
      config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl },
      secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsRoot },
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
    expect(risk).not.toContain("spare");
    expect(risk).not.toContain("payments");
    expect(sames.stdout).toContain("### ⚠️ Data at risk: 2 changes lose or strand data");
    // Without the unchanged template in the preview, the alphabet's use cannot be seen: said so.
    const plain = section(review(path.join(work, "plain.json")).stdout);
    expect(plain).toContain("(if an unchanged TransformTemplate uses it: this preview lists no unchanged resources; make it with --show-sames to know)");
    expect(review(path.join(work, "sames.json"), "--fail-on-risk").status).toBe(3);
  }, 300_000);
});
