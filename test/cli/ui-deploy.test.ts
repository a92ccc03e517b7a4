// The emulator's web page while examples/runs deploys under the real Pulumi CLI: the page shows what
// `pulumi up` makes as it makes it, and the run the deployment waits for is moved from the page.
import { mkdtempSync, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSecretShown, launchChromium, playwrightFor, watchPage, type Browser } from "../support/browser";
import { control, useEmulator } from "../support/emulator";
import { CliStack, describeCli } from "./cli";
import { examples, prepareExample, type Expectations, type Prepared } from "./expectations";

describeCli("the emulator's web page while examples/runs deploys", () => {
  const playwright = playwrightFor("the web page during a real deployment");
  const { emu } = useEmulator({ reset: false, env: false });
  let browser: Browser;
  let stack: CliStack;
  let prepared: Prepared;
  const dir = mkdtempSync(path.join(os.tmpdir(), "emu-ui-deploy-"));

  beforeAll(async () => {
    if (!playwright) return;
    const exp = examples().find((e) => e.name === "runs")!.expectations!;
    // Auto-advance off, so the run waits at pending until the page moves it; a hook, so there are deliveries.
    const withHook: Expectations = {
      ...exp,
      emulator: { autoAdvanceMs: 0 },
      config: { ...exp.config, "runs:hookUrl": "{controlUrl}/sink/ui" },
      secretConfig: { ...exp.secretConfig, "runs:hookToken": "runs-ui-hook-token-3c9d" },
    };
    prepared = await prepareExample(withHook, emu);
    stack = await CliStack.create({ project: exp.project, program: { example: "runs" }, config: prepared.config, secretConfig: prepared.secretConfig });
    browser = await launchChromium(playwright);
  });

  afterAll(async () => {
    await browser?.close();
    stack?.remove();
    await prepared?.close();
    if (playwright) console.log(`web page screenshot: ${path.join(dir, "emulator-ui-deploy.png")}`);
  });

  describe("in chromium", () => {
    it("shows every object as up makes it, the run's transitions and a delivery; advance moves the run; no secret", async () => {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const watched = watchPage(page);
      await page.goto(`${emu.controlUrl}/ui/`);
      await page.getByText("no runs yet").waitFor();

      const up = stack.run(["up", "--yes", "--skip-preview"]);
      const row = page.locator("tr[data-run]").first();
      await Promise.race([
        row.waitFor({ timeout: 120_000 }),
        up.then((r) => { throw new Error(`up ended (exit ${r.code}) before its run showed:\n${r.stdout}\n${r.stderr}`); }),
      ]);
      expect(await row.locator(".status").textContent()).toBe("pending");
      await row.locator("button.advance").click();
      await row.locator(".status", { hasText: "plan_queued" }).waitFor();
      // Read while up still waits for the run (it cannot end before the run is applied): the objects
      // listed and the runs' rows.
      const during = [
        await page.locator("#objects").innerText(),
        ...(await page.locator("tr[data-run]").evaluateAll((rows: { getAttribute(name: string): string | null }[]) => rows.map((r) => r.getAttribute("data-run")))),
      ].join("\n");

      await control(emu, "PUT", "/clock", { autoAdvanceMs: 20 });
      const done = await up;
      if (done.code !== 0) throw new Error(`up failed:\n${done.stdout}\n${done.stderr}`);

      // Every object of this package in the state was on the page while up ran.
      const created = (await stack.state()).resources.filter((r) => !r.type.startsWith("pulumi:")).map((r) => r.id!);
      expect(created).toHaveLength(2);
      for (const id of created) expect(during, `${id} on the page during up`).toContain(id);

      const runId = (await stack.outputs()).runId as string;
      const run = page.locator(`tr[data-run="${runId}"]`);
      await run.locator(".status", { hasText: "applied" }).waitFor();
      const timeline = (await run.locator(".timeline li").allTextContents()).map((t: string) => t.split(" ")[0]);
      expect(timeline.slice(0, 2)).toEqual(["plan_queueable", "plan_queued"]);
      expect(timeline).toContain("planning");
      expect(timeline.at(-1)).toBe("applied");

      const delivery = page.locator("details.delivery", { hasText: "run:completed" }).first();
      await delivery.waitFor();
      await delivery.locator("summary").click();
      const shown = (await delivery.textContent()) as string;
      expect(shown).toMatch(/"X-Svc-Notification-Signature": "[0-9a-f]{128}"/);
      expect(shown).toContain(runId);
      expect(shown).toMatch(/answered 200/);

      // Each object's link opens its JSON (masked) in a new tab.
      for (const id of created) {
        const [tab] = await Promise.all([page.context().waitForEvent("page"), page.locator("a", { hasText: id }).first().click()]);
        await tab.waitForLoadState();
        expect(JSON.stringify(JSON.parse(await tab.locator("body").innerText())), `${id}'s JSON`).toContain(id);
        await tab.close();
      }

      await page.screenshot({ path: path.join(dir, "emulator-ui-deploy.png") });
      expect(statSync(path.join(dir, "emulator-ui-deploy.png")).size).toBeGreaterThan(0);

      await expectNoSecretShown(page, watched, [
        ...Object.entries(prepared.secretConfig).map(([k, v]): [string, string] => [`config ${k}`, v]),
        ...Object.entries(emu.tokens).map(([k, v]): [string, string] => [`emulator token ${k}`, v]),
      ]);
      expect(watched.errors).toEqual([]);
      await page.close();
    });
  });
});
