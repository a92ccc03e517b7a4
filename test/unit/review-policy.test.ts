// pulumi-svc-review --policy EVENTS: the policy packs' findings of a preview, read from its event
// log (the --json document carries none), in the review: mandatory violations first, why each
// policy holds, remediations old → new; --fail-on-policy stops CI on any violation.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/review/cli";
import { review } from "../../src/review/review";

const URN = (type: string, name: string) => `urn:pulumi:dev::p::pulumi-nodejs:dynamic/${type}::${name}`;
const preview = JSON.stringify({
  steps: [{ op: "create", urn: URN("secrets:KeymgmtKey", "signing"), newState: { type: "pulumi-nodejs:dynamic/secrets:KeymgmtKey", inputs: { name: "signing", deletionAllowed: false } } }],
  changeSummary: { create: 1 },
});
const events = [
  { policyEvent: { resourceUrn: URN("secrets:KeymgmtKey", "signing"), message: "Keys are of the team's types.\nkey signing is rsa-2048\n", policyName: "allowed-key-types", policyPackName: "guard", policyPackVersion: "1.0.0", enforcementLevel: "advisory" } },
  { policyRemediationEvent: { resourceUrn: URN("secrets:KeymgmtKey", "signing"), policyName: "key-deletion-allowed", policyPackName: "guard", before: { __provider: "x", deletionAllowed: true }, after: { __provider: "x", deletionAllowed: false } } },
  { policyEvent: { resourceUrn: URN("runs:NotificationConfiguration", "hook"), message: "A notification destination takes HTTPS.\nci: generic destination http://hooks.example.com is plain http\n", policyName: "notification-url-tls", policyPackName: "guard", policyPackVersion: "1.0.0", enforcementLevel: "mandatory" } },
].map((e) => JSON.stringify(e)).join("\n");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "review-policy-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

describe("the review of a preview's policy findings", () => {
  it("lists mandatory violations first, each with what its policy reported, then why, then remediations", async () => {
    const { text, violations } = await review(preview, { policyEvents: events });
    expect(violations).toEqual({ mandatory: 1, advisory: 1 });
    const mandatory = text.indexOf("- ⛔ **mandatory** `notification-url-tls` on `hook` (runs:NotificationConfiguration): `ci: generic destination http://hooks.example.com is plain http`");
    const advisory = text.indexOf("- ⚠️ advisory `allowed-key-types` on `signing` (secrets:KeymgmtKey): `key signing is rsa-2048`");
    expect(text).toContain("### ⛔ Policy violations: 1 mandatory, 1 advisory");
    expect(mandatory).toBeGreaterThan(0);
    expect(advisory).toBeGreaterThan(mandatory);
    expect(text).toContain("- `notification-url-tls` (`guard 1.0.0: A notification destination takes HTTPS.`)");
    expect(text).toContain("- `key-deletion-allowed` (guard) on `signing` (secrets:KeymgmtKey): `deletionAllowed`: `true` → `false`");
    // The plan comes first, the policies after its counts.
    expect(text.indexOf("**Plan:** 1 to create.")).toBeLessThan(mandatory);
  });

  it("without an event log, says nothing of policies", async () => {
    const { text, violations } = await review(preview);
    expect(violations).toEqual({ mandatory: 0, advisory: 0 });
    expect(text).not.toContain("Policy violations");
  });

  it("--fail-on-policy exits 3 on an advisory violation of a preview that passed; without it, 0", async () => {
    const json = file("preview.json", preview);
    const advisoryOnly = file("advisory.jsonl", events.split("\n")[0]!);
    expect((await main(["--policy", advisoryOnly, json])).code).toBe(0);
    expect((await main(["--policy", advisoryOnly, "--fail-on-policy", json])).code).toBe(3);
    expect((await main(["--policy", file("none.jsonl", events.split("\n")[1]!), "--fail-on-policy", json])).code).toBe(0);
    await expect(main(["--fail-on-policy", json])).rejects.toThrow("--fail-on-policy needs --policy EVENTS");
  });

  it("refuses an event log that is not one, naming the line", async () => {
    await expect(main(["--policy", file("bad.jsonl", '{"a":1}\nnot json'), file("p.json", preview)])).rejects.toThrow("line 2: not JSON");
  });
});
