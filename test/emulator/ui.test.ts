import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startEmulator } from "../../src/emulator";
import { expectNoSecretShown, launchChromium, playwrightFor, watchPage, type Browser } from "../support/browser";
import { bearer, svcToken } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";

// The web page in a real browser (test/support/browser.ts says what it needs).

const HOSTILE = `<img src=x onerror="window.__pwned=1">`;
const SECRETS = { nc: "nc-ui-signing-secret-41ab", kms: "kms-ui-client-secret-77cd", bind: "bind-ui-pass-90ef" };

describe("the emulator's web page", () => {
  const playwright = playwrightFor("the web page tests");
  const { emu } = useEmulator({ reset: false, env: false });
  let dir = "";
  let browser: Browser;
  beforeAll(async () => {
    if (!playwright) return;
    dir = mkdtempSync(join(tmpdir(), "emu-ui-"));
    browser = await launchChromium(playwright);
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) console.log(`web page screenshot: ${join(dir, "emulator-ui.png")}`);
  });

  test("shows objects, a run's transitions and a delivery as they happen; advance moves the run; no secret; names are text", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const watched = watchPage(page);
    await page.goto(`${emu.controlUrl}/ui/`);
    await page.getByText("no runs yet").waitFor();

    // Objects made while the page is open.
    const root = svcToken(emu.tokens.secretsRoot);
    expect((await call("POST", `${emu.secretsUrl}/transform/alphabet/${encodeURIComponent(HOSTILE)}`, { headers: root, body: { alphabet: "01" } })).status).toBe(204);
    expect((await call("POST", `${emu.secretsUrl}/keymgmt/kms/p`, { headers: root, body: { provider: "azurekeyvault", key_collection: "c", credentials: { client_id: "i", client_secret: SECRETS.kms, tenant_id: "t" } } })).status).toBe(204);
    expect((await call("POST", `${emu.controlUrl}/directory/accounts`, { body: { accounts: ["svc-a"] } })).status).toBe(200);
    expect((await call("POST", `${emu.secretsUrl}/directory/config`, { headers: root, body: { binddn: "cn=admin,dc=example,dc=org", bindpass: SECRETS.bind, url: "ldap://127.0.0.1:1" } })).status).toBe(204);
    const nc = await call("POST", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, {
      headers: bearer(emu.tokens.runAdmin),
      body: { data: { type: "notification-configurations", attributes: { name: "ui-hook", "destination-type": "generic", enabled: true, url: `${emu.url}/_emulator/sink/ui`, token: SECRETS.nc, triggers: ["run:created", "run:planning"] } } },
    });
    expect(nc.status).toBe(201);
    const runs = await call("POST", `${emu.controlUrl}/runs`, { body: { workspaceId: emu.workspaceId, count: 1, message: "from the ui test" } });
    expect(runs.status).toBe(201);
    const runId: string = runs.json.ids[0];

    // The page finds them by polling.
    await page.getByText(HOSTILE, { exact: true }).waitFor();
    await page.locator("#objects .fields", { hasText: 'name="ui-hook"' }).waitFor();
    const row = page.locator(`tr[data-run="${runId}"]`);
    await row.waitFor();
    expect(await row.locator(".status").textContent()).toBe("pending");
    await page.locator("details.delivery summary", { hasText: "run:created" }).first().waitFor();
    const delivery = page.locator("details.delivery", { hasText: "run:created" }).first();
    await delivery.locator("summary").click();
    expect(await delivery.textContent()).toMatch(/"X-Svc-Notification-Signature": "[0-9a-f]{128}"/);
    expect(await delivery.textContent()).toContain(runId);
    expect(await delivery.textContent()).toMatch(/answered 200/);

    // advance: the run moves and its timeline grows, the next delivery arrives.
    await row.locator("button.advance").click();
    await row.locator(".status", { hasText: "plan_queued" }).waitFor();
    await row.locator(".timeline li", { hasText: "plan_queued" }).waitFor();
    const early = (await row.locator(".timeline li").allTextContents()).map((t: string) => t.split(" ")[0]);
    expect(early).toEqual(["plan_queueable", "plan_queued"]);
    await row.locator("button.advance").click();
    await row.locator(".status", { hasText: "planning" }).waitFor();
    await page.locator("details.delivery summary", { hasText: "run:planning" }).first().waitFor();
    const timeline = (await row.locator(".timeline li").allTextContents()).map((t: string) => t.split(" ")[0]);
    expect(timeline).toEqual(["plan_queueable", "plan_queued", "planning"]);

    // Each outcome is awaited by its own response: the note of an earlier one would match too.
    const applyOutcome = async (name: string) => {
      await row.locator("select").selectOption(name);
      const answered = page.waitForResponse((r: { url(): string; request(): { method(): string } }) => r.url().endsWith("/outcome") && r.request().method() === "POST");
      await row.getByText("apply outcome").click();
      expect((await answered).status()).toBe(200);
    };
    // Held from the page, the run does not move on until released.
    await applyOutcome("hold-here");
    await row.locator("button.advance").click();
    await page.locator("#note", { hasText: "/advance → 409" }).waitFor();
    expect(await row.locator(".status").textContent()).toBe("planning");
    await applyOutcome("release-hold");

    // An outcome applied from the page decides where the next step goes.
    await applyOutcome("plan-error");
    await row.locator("button.advance").click();
    await row.locator(".status", { hasText: "errored" }).waitFor();

    // A fault added and cleared from the page.
    await page.fill("input[name=fault-path]", "/v1/transform/*");
    await page.fill("input[name=fault-status]", "503");
    await page.click("#fault-form button");
    await page.locator("#faults td", { hasText: "/v1/transform/*" }).waitFor();
    expect((await call("GET", `${emu.controlUrl}/faults`)).json.faults).toHaveLength(1);
    await page.click("#clear-faults");
    await page.getByText("no active faults").waitFor();

    // The hostile name is text: no element was made from it and its handler never ran.
    expect(await page.evaluate("document.querySelectorAll('img').length")).toBe(0);
    expect(await page.evaluate("window.__pwned")).toBeUndefined();

    // One object's JSON opens through its link, masked.
    const kmsLink = page.locator("a", { hasText: /^p$/ }).first();
    const json = await (await page.context().request.get(new URL((await kmsLink.getAttribute("href")) as string, emu.url).toString())).json();
    expect(json).toMatchObject({ provider: "azurekeyvault", credentials: "••••••" });

    await page.screenshot({ path: join(dir, "emulator-ui.png"), fullPage: false });
    expect(statSync(join(dir, "emulator-ui.png")).size).toBeGreaterThan(0);

    await expectNoSecretShown(page, watched, [...Object.entries(SECRETS), ...Object.entries(emu.tokens)]);
    expect(watched.errors).toEqual([]);
    await page.close();
  });

  test("reset from the page empties it; the clock box follows the clock; beyond loopback the page needs the control token", async () => {
    const page = await browser.newPage();
    await call("POST", `${emu.controlUrl}/runs`, { body: { workspaceId: emu.workspaceId, count: 1 } });
    expect((await call("PUT", `${emu.controlUrl}/clock`, { body: { autoAdvanceMs: 60_000 } })).status).toBe(200);
    // Drawn with the page, before any poll (held back here until the page has loaded): a screenshot
    // right after load shows the emulator.
    let release = () => {};
    const held = new Promise<void>((r) => { release = r; });
    await page.route("**/ui/state.json", async (route: { continue(): Promise<void> }) => { await held; await route.continue(); });
    await page.goto(`${emu.controlUrl}/ui/`);
    expect(await page.textContent("#clock")).toMatch(/^cluster .* auto-advance every 60000 ms/);
    expect(await page.locator("tr[data-run]").count()).toBeGreaterThan(0);
    release();
    await page.unroute("**/ui/state.json");
    await page.getByText("every 60000 ms").waitFor();
    expect(await page.inputValue('input[name="clock-ms"]')).toBe("60000");
    await call("PUT", `${emu.controlUrl}/clock`, { body: { autoAdvanceMs: 0 } });
    await page.getByText("auto-advance off").waitFor();
    expect(await page.inputValue('input[name="clock-ms"]')).toBe("0");
    await page.click("#reset");
    await page.getByText("no runs yet").waitFor();
    await page.close();

    const open = await startEmulator({ controlToken: "ui-control-token-1234" });
    try {
      expect((await call("GET", `${open.controlUrl}/ui/`)).status).toBe(401);
      expect((await call("GET", `${open.controlUrl}/ui/state.json?token=wrong`)).status).toBe(401);
      const tokened = await browser.newPage();
      await tokened.goto(`${open.controlUrl}/ui/?token=ui-control-token-1234`);
      await tokened.getByText("no runs yet").waitFor();
      await tokened.close();
    } finally {
      await open.close();
    }
  });
});
