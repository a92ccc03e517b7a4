import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { launchChromium, playwrightFor, type Browser } from "../support/browser";
import { svcToken } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";

// The attacks of docs/emulator.md ("Pages of other sites") played by a real browser: a page of
// another origin writes to the emulator without a preflight, and a name of the attacker's that
// resolves to 127.0.0.1 (Chromium's resolver rules stand for the attacker's DNS) reads it.

/** The attacker's page: every write a page can send to another site without asking. */
function attackPage(controlUrl: string): string {
  const fault = JSON.stringify({ method: "GET", path: "/v1/*", status: 500, count: 100 });
  return `<!doctype html><body>
<form id="f" method="POST" action="${controlUrl}/faults" enctype="text/plain" target="sink"><input name='${fault.slice(0, -1)}, "x": "' value='"}'></form>
<iframe name="sink"></iframe>
<script>
  const control = ${JSON.stringify(controlUrl)};
  window.done = Promise.allSettled([
    fetch(control + "/reset", { method: "POST", mode: "no-cors" }),
    fetch(control + "/reset", { method: "POST", mode: "no-cors", body: "{}" }),
    fetch(control + "/faults", { method: "POST", mode: "no-cors", body: ${JSON.stringify(fault)} }),
    fetch(control + "/clock", { method: "PUT", body: '{"autoAdvanceMs": 5}', headers: { "content-type": "application/json" } }),
    new Promise((resolve) => { document.getElementById("f").submit(); setTimeout(resolve, 500); }),
    // The webhook sinks stay open: this one proves the browser did send such requests.
    fetch(control + "/sink/attack", { method: "POST", mode: "no-cors", body: "{}" }),
  ]).then((all) => all.map((r) => r.status));
</script></body>`;
}

describe("pages of other sites in a real browser", () => {
  const playwright = playwrightFor("the attacks from pages of other sites");
  const { emu } = useEmulator({ reset: false, env: false });
  let browser: Browser;
  let attacker: http.Server;
  let attackerUrl = "";
  beforeAll(async () => {
    if (!playwright) return;
    attacker = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(attackPage(emu.controlUrl));
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
    browser = await launchChromium(playwright, ["--host-resolver-rules=MAP evil.example 127.0.0.1"]);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
  });

  test("a page of another origin changes nothing: no reset, no fault, no clock", async () => {
    const url = `${emu.secretsUrl}/transform/alphabet/canary`;
    expect((await call("POST", url, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "ab" } })).status).toBe(204);
    const page = await browser.newPage();
    await page.goto(attackerUrl);
    await page.evaluate("window.done");
    const sink = (await call("GET", `${emu.controlUrl}/sinks/attack`)).json.requests;
    expect(sink.map((r: { headers: Record<string, string> }) => r.headers.origin)).toEqual([attackerUrl.slice(0, -1)]);
    expect((await call("GET", url, { headers: svcToken(emu.tokens.secretsRoot) })).status).toBe(200);
    expect((await call("GET", `${emu.controlUrl}/faults`)).json.faults).toEqual([]);
    expect((await call("GET", `${emu.controlUrl}/clock`)).json.autoAdvanceMs).toBe(0);
    await page.close();
  });

  test("a rebound name reads nothing: the page and its data are 403 and name --allowed-host", async () => {
    const page = await browser.newPage();
    const port = new URL(emu.url).port;
    for (const path of ["/ui/", "/ui/state.json", "/snapshot"]) {
      const res = await page.goto(`http://evil.example:${port}/_emulator${path}`);
      expect(res.status(), path).toBe(403);
      expect(await res.text()).toContain("--allowed-host evil.example");
    }
    // The same page through the emulator's own address works, as ui.test.ts plays it.
    const own = await page.goto(`${emu.controlUrl}/ui/state.json`);
    expect(own.status()).toBe(200);
    await page.close();
  });
});
