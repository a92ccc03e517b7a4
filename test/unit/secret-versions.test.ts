// The version of a secret input (src/core/versions.ts), through the runtime's check and diff as the
// engine calls them: 1 when first set, one more per change, kept when the value is the same, unknown
// when the value is, none while unset; never a reason to update by itself (states from before).
import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { UNKNOWN } from "../../src/core/unknown";
import { versionKeys } from "../../src/core/versions";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";
import * as fs from "node:fs";
import * as path from "node:path";

type Props = Record<string, unknown>;
const NC = "runs:NotificationConfiguration";
const config = { "svc:runUrl": "http://127.0.0.1:1/api/v2", "svc:runToken": "run-token-for-versions" };
const args = { workspaceId: "ws-versions000001", name: "n", destinationType: "generic", url: "http://127.0.0.1:9/h" };

async function check(news: Props, olds: Props = {}): Promise<Props> {
  const { configure } = await import("../../src/runtime");
  await configure({ config: { get: (k: string) => config[k as keyof typeof config] } });
  const r = (await call(NC, "check", [olds, news])) as { inputs: Props; failures: unknown[] };
  expect(r.failures).toEqual([]);
  return r.inputs;
}

describe("secret input versions", () => {
  it("counts changes of the value: 1 on create, the same when unchanged, one more when changed", async () => {
    const one = await check({ ...args, token: "first-secret-aaaa" });
    expect(one.tokenVersion).toBe(1);
    const same = await check({ ...args, token: "first-secret-aaaa", name: "renamed" }, one);
    expect(same.tokenVersion).toBe(1);
    const two = await check({ ...args, token: "second-secret-bbbb" }, same);
    expect(two.tokenVersion).toBe(2);
    expect(JSON.stringify(two.tokenVersion)).not.toContain("secret");
  });

  it("has no version while the secret is unset; setting it later starts at 1, clearing drops it", async () => {
    const none = await check(args);
    expect(none).not.toHaveProperty("tokenVersion");
    const set = await check({ ...args, token: "late-secret-cccc" }, none);
    expect(set.tokenVersion).toBe(1);
    const cleared = await check(args, set);
    expect(cleared).not.toHaveProperty("tokenVersion");
    const again = await check({ ...args, token: "late-secret-cccc" }, cleared);
    expect(again.tokenVersion).toBe(1);
  });

  it("is unknown in a preview when the secret is", async () => {
    const one = await check({ ...args, token: "first-secret-aaaa" });
    expect((await check({ ...args, token: UNKNOWN }, one)).tokenVersion).toBe(UNKNOWN);
  });

  it("a state from before versions: no diff while the secret is the same, version 2 when it changes", async () => {
    const legacy = { ...(await check({ ...args, token: "old-secret-dddd" })) };
    delete legacy.tokenVersion;
    const same = await check({ ...args, token: "old-secret-dddd" }, legacy);
    expect(same.tokenVersion).toBe(1);
    expect(await call(NC, "diff", ["nc-1", legacy, same])).toMatchObject({ changes: false });
    const changed = await check({ ...args, token: "new-secret-eeee" }, legacy);
    expect(changed.tokenVersion).toBe(2);
    expect(await call(NC, "diff", ["nc-1", legacy, changed])).toMatchObject({ changes: true, replaces: [] });
  });

  it("a version given by the program is an unknown property", async () => {
    const r = (await call(NC, "check", [{}, { ...args, token: "t-secret-ffff", tokenVersion: 7 }])) as { failures: { property: string }[] };
    expect(r.failures.map((f) => f.property)).toEqual(["tokenVersion"]);
  });

  it("every secret input of every kind has its typed, documented output in SecretVersions", async () => {
    const source = fs.readFileSync(path.join(__dirname, "../../src/core/secretVersions.ts"), "utf8");
    const declared = source.slice(source.indexOf("export interface SecretVersions"));
    const names = new Set<string>();
    for (const kind of KIND_NAMES) for (const k of versionKeys((await kindDefinition(kind))!.fields)) names.add(k);
    expect(names.size).toBeGreaterThan(5);
    for (const k of names) expect(declared.slice(0, declared.indexOf("\n}")), k).toContain(`readonly ${k}:`);
  });
});
