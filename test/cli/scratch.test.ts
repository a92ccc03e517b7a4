import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { startEmulator } from "../../src/emulator";
import { secretsApi, runApi } from "../support/emulator";
import { CliStack, describeCli } from "./cli";
describeCli("scratch", () => {
  it("drift", async () => {
    const emu = await startEmulator();
    const s = await CliStack.create({ project: "scratch", program: path.join(__dirname, "programs/scratch/index.js"),
      config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "scratch:ws": emu.workspaceId }, secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsRoot } });
    expect((await s.up()).code).toBe(0);
    await secretsApi(emu, "POST", "/transform/alphabet/digits", { alphabet: "0123456789AB" });
    await secretsApi(emu, "DELETE", "/transform/alphabet/gone");
    const st = await s.state();
    const nc = st.resources.find((r) => r.urn.endsWith("::hook"))!.id!;
    const r = await runApi(emu, "GET", `/notification-configurations/${nc}`);
    delete (s as any).env.PULUMI_SKIP_CONFIRMATIONS;
    { const x = await s.run(["refresh", "--preview-only", "--json"]); fs.writeFileSync("/tmp/drift.json", x.stdout); fs.writeFileSync("/tmp/drift.err", String(x.code) + "\n" + x.stderr); }
    await s.run(["refresh", "--preview-only", "--event-log", "/tmp/drift-events.jsonl"]);
    s.remove(); await emu.close();
  }, 300_000);
});
