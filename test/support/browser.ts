import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { expect } from "vitest";
import { needsReal } from "./real";

/**
 * A real browser for the emulator's web page: Debian's chromium, driven by playwright-core (found
 * through node_modules or NODE_PATH). Without either, the tests that need them skip with the reason
 * printed, or fail with SVC_REQUIRE_REAL=1 (playwrightFor).
 */
const CHROMIUM = process.env.SVC_CHROMIUM ?? "/usr/bin/chromium";
const PLAYWRIGHT_VERSION = "1.65.1";

// playwright-core is loaded at run time, so its types are not imported.
/* eslint-disable @typescript-eslint/no-explicit-any */
export type Browser = any;
export type Page = any;
/* eslint-enable @typescript-eslint/no-explicit-any */

interface Playwright { chromium: { launch(o: unknown): Promise<Browser> } }

function loadPlaywright(): Playwright | string {
  if (!existsSync(CHROMIUM)) return `no browser at ${CHROMIUM} (apt-get install -y chromium)`;
  try {
    return createRequire(join(process.cwd(), "package.json"))("playwright-core") as Playwright;
  } catch {
    return `playwright-core is not installed (npm install playwright-core@${PLAYWRIGHT_VERSION}, or NODE_PATH to a folder holding it)`;
  }
}

/**
 * playwright-core for the enclosing describe's tests, which need it (test/support/real.ts): undefined
 * when it cannot be had; launch the browser only then.
 */
export function playwrightFor(what: string): Playwright | undefined {
  const loaded = loadPlaywright();
  return needsReal(what, typeof loaded === "string" ? loaded : undefined) ? (loaded as Playwright) : undefined;
}

export function launchChromium(playwright: Playwright, args: string[] = []): Promise<Browser> {
  return playwright.chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", ...args] });
}

/**
 * From now on, every response body the page and the pages it opens (an object's JSON opens in a
 * new tab) receive, and every script error the page throws.
 */
export function watchPage(page: Page): { bodies(): Promise<string[]>; errors: string[] } {
  const bodies: Promise<string>[] = [];
  const errors: string[] = [];
  page.context().on("response", (res: { text(): Promise<string> }) => bodies.push(res.text().catch(() => "")));
  page.on("pageerror", (err: Error) => errors.push(err.message));
  return { bodies: () => Promise.all(bodies), errors };
}

/**
 * No secret in the page's text nor in any response it received. A failure names each leaked
 * secret by its label, never its value.
 */
export async function expectNoSecretShown(page: Page, watched: ReturnType<typeof watchPage>, secrets: [label: string, value: string][]): Promise<void> {
  const text = (await page.evaluate("document.body.innerText")) as string;
  const bodies = await watched.bodies();
  expect(bodies.length).toBeGreaterThan(5);
  const leaked = secrets.filter(([, v]) => text.includes(v) || bodies.some((b) => b.includes(v))).map(([label]) => label);
  expect(leaked, "secrets shown by the web page").toEqual([]);
}
