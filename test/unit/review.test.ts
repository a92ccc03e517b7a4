// pulumi-svc-review on hand-made `pulumi preview --json` output: summary, per-resource diff,
// replacement reason and order, secrets, --full, the no-change line, other providers, the size limit.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { review, reviewPreview } from "../../src/review/review";
import { SECRET_SIG } from "../../src/review/secret";
import { main, parseArgs } from "../../src/review/cli";

const STACK = "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev";
const urn = (type: string, name: string) => `urn:pulumi:dev::p::${type}::${name}`;
const T = (kind: string) => `pulumi-nodejs:dynamic/secrets:${kind}`;
const PROVIDER = "exports.handler = __f0; // serialized provider";

interface Step { op: string; urn: string; oldState?: object; newState?: object; replaceReasons?: string[]; detailedDiff?: null }

function step(op: string, type: string, name: string, olds: Record<string, unknown> | undefined, news: Record<string, unknown> | undefined, extra: { id?: string; old?: object; new?: object; replaceReasons?: string[] } = {}): Step {
  return {
    op, urn: urn(type, name), detailedDiff: null,
    ...(olds ? { oldState: { type, id: extra.id, inputs: { __provider: PROVIDER, ...olds }, outputs: { __provider: PROVIDER, ...olds }, ...extra.old } } : {}),
    ...(news ? { newState: { type, inputs: { __provider: PROVIDER, ...news }, ...extra.new } } : {}),
    ...(extra.replaceReasons ? { replaceReasons: extra.replaceReasons } : {}),
  };
}

function preview(steps: Step[], same = 1): string {
  const changeSummary: Record<string, number> = { same };
  for (const s of steps) changeSummary[s.op] = (changeSummary[s.op] ?? 0) + 1;
  return JSON.stringify({ config: {}, steps: [{ op: "same", urn: STACK }, ...steps], diagnostics: [], changeSummary });
}

const role = (olds: Record<string, unknown>, news: Record<string, unknown>) =>
  step("update", T("TransformRole"), "payments", { mount: "transform", name: "payments", ...olds }, { mount: "transform", name: "payments", ...news }, { id: "transform/role/payments" });

describe("pulumi-svc-review", () => {
  it("summary first: counts by operation, every replacement and delete named", async () => {
    const out = await reviewPreview(preview([
      role({ transformations: ["a"] }, { transformations: ["a", "b"] }),
      step("replace", T("TransformTemplate"), "ssn", { name: "us-ssn", pattern: "x" }, { name: "us-ssn-v2", pattern: "x" }, { id: "transform/template/us-ssn", old: { delete: true }, replaceReasons: ["name"] }),
      step("delete", T("TransformAlphabet"), "old-digits", { name: "digits8", alphabet: "01234567" }, undefined, { id: "transform/alphabet/digits8" }),
      step("create", T("TransformAlphabet"), "hex", undefined, { name: "hex", alphabet: "0123456789abcdef" }),
    ], 3));
    const head = out.slice(0, out.search(/\n### (?!⚠️)/));
    expect(head).toContain("**Plan:** 1 to replace, 1 to delete, 1 to update, 1 to create, 3 unchanged.");
    expect(head).toMatch(/replace `ssn` .*`transform\/template\/us-ssn` → `transform\/template\/us-ssn-v2`: forced by `name`; the new object is created first/);
    expect(head).toMatch(/delete `old-digits` .*`transform\/alphabet\/digits8`/);
    expect(out).not.toContain("urn:pulumi");
    expect(out).not.toContain("__provider");
    expect(out).not.toContain("serialized provider");
  });

  it("an update names each changed property old → new, with the object's path; unchanged ones only counted", async () => {
    const out = await reviewPreview(preview([role({ transformations: ["a"], tokenTtl: 60 }, { transformations: ["a", "b"], tokenTtl: 60 })]));
    expect(out).toContain("#### update: `payments` (secrets:TransformRole) `transform/role/payments`");
    expect(out).toContain('- `transformations`: `["a"]` → `["a","b"]`');
    expect(out).not.toContain("tokenTtl");
    expect(out).toContain("3 unchanged properties not shown (--full lists them).");
    expect(out).toContain("### secrets · transform");
  });

  it("--full lists unchanged properties too", async () => {
    const out = await reviewPreview(preview([role({ tokenTtl: 60 }, { tokenTtl: 61 })]), { full: true });
    expect(out).toContain("- `mount`: `\"transform\"` (unchanged)");
    expect(out).toContain("- `tokenTtl`: `60` → `61`");
  });

  it("added and removed properties, unknown values", async () => {
    const out = await reviewPreview(preview([role({ tokenTtl: 60 }, { maxTtl: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" })]));
    expect(out).toContain("- `tokenTtl`: `60` → (none)");
    expect(out).toContain("- `maxTtl`: (none) → (known after apply)");
  });

  it("a replacement: the property that forces it and the order, from the preview's markers or the step order", async () => {
    const dbr = await reviewPreview(preview([step("replace", "pulumi-nodejs:dynamic/runs:Run", "deploy", { triggers: { release: "1" } }, { triggers: { release: "2" } }, { id: "run-1", old: { pendingReplacement: true }, replaceReasons: ["triggers"] })]));
    expect(dbr).toContain("#### replace: `deploy` (runs:Run) `runs/run-1`");
    expect(dbr).toContain("Replacement forced by `triggers`; **the old object is deleted first**, then the new one created.");
    expect(dbr).toContain('- `triggers`: `{"release":"1"}` → `{"release":"2"}`');
    // The order of create-replacement and delete-replaced (as an up's event stream lists them).
    const tpl = (ops: string[]) => reviewPreview(preview(ops.map((op) =>
      step(op, T("TransformTemplate"), "ssn", { name: "a" }, { name: "b" }, { id: "transform/template/a", replaceReasons: ["name"] }))));
    expect(await tpl(["delete-replaced", "create-replacement", "replace"])).toContain("**the old object is deleted first**");
    expect(await tpl(["create-replacement", "replace", "delete-replaced"])).toContain("the new object is created first, then the old one deleted");
    // No marker and no step order: this package's own rule (the name, part of the path, changes: create first).
    expect(await tpl(["replace"])).toContain("forced by `name`; the new object is created first");
    // Another provider's replacement with nothing said.
    expect(await reviewPreview(preview([step("replace", "aws:s3/bucket:Bucket", "b", { bucket: "x" }, { bucket: "y" }, { id: "x", replaceReasons: ["bucket"] })])))
      .toContain("Replacement forced by `bucket`; order not stated in the preview.");
    expect(await tpl(["create-replacement", "replace", "delete-replaced"])).toContain("**Plan:** 1 to replace");
    // A replacement on request: the engine's reason is the id.
    expect(await reviewPreview(preview([step("replace", T("TransformAlphabet"), "digits", { name: "digits" }, { name: "digits" }, { id: "transform/alphabet/digits", new: { deleteBeforeReplace: true }, replaceReasons: ["id"] })])))
      .toContain("Replacement on request (`pulumi up --replace`, `--target-replace` or a tainted resource; no input changed); **the old object is deleted first**");
    // deleteBeforeReplace as a resource option.
    expect(await reviewPreview(preview([step("replace", "aws:s3/bucket:Bucket", "b", { bucket: "x" }, { bucket: "y" }, { id: "x", new: { deleteBeforeReplace: true } })])))
      .toContain("no reason given by the provider; **the old object is deleted first**");
  });

  it("a replacement the engine cascades from one deleted first names that one, in plain --json and with --show-replacement-steps", async () => {
    // The shapes CLI v3.259 prints when a key's type changes and a distribution takes its keyName.
    const keyUrn = urn(T("KeymgmtKey"), "signing");
    const deps = { propertyDependencies: { keyName: [keyUrn], purpose: [] } };
    const key = (op: string) => step(op, T("KeymgmtKey"), "signing", { name: "k", type: "ecdsa-p256" }, { name: "k", type: "rsa-2048" },
      { id: "keymgmt/key/k", old: { pendingReplacement: true }, ...(op === "delete-replaced" ? {} : { replaceReasons: ["type"] }) });
    const dist = (op: string) => step(op, T("KeymgmtKeyDistribution"), "dist", { keyName: "k", kmsName: "aws" }, { keyName: "k", kmsName: "aws" },
      { id: "keymgmt/kms/aws/key/k", old: { pendingReplacement: true, ...deps }, new: deps, ...(op === "create-replacement" ? { replaceReasons: ["keyName"] } : {}) });
    const said = "because `signing` (secrets:KeymgmtKey), which its `keyName` comes from, is replaced and deleted first";
    const plain = await reviewPreview(preview([key("replace"), dist("replace")]));
    expect(plain).toContain(`- ⚠️ replace \`dist\` (secrets:KeymgmtKeyDistribution) \`keymgmt/kms/aws/key/k\`: ${said}`);
    expect(plain).not.toContain("no reason given");
    expect(plain).not.toContain("No input changed");
    const steps = await reviewPreview(preview([dist("delete-replaced"), key("delete-replaced"), key("replace"), key("create-replacement"), dist("replace"), dist("create-replacement")]));
    expect(steps).toContain(said);
    expect(steps).not.toContain("forced by `keyName`");
    // A dependent whose own input changed is replaced for that input, not as a cascade.
    const own = step("replace", T("KeymgmtKeyDistribution"), "dist", { keyName: "k", protection: "hsm" }, { keyName: "k", protection: "software" },
      { id: "keymgmt/kms/aws/key/k", new: deps, replaceReasons: ["protection"] });
    expect(await reviewPreview(preview([key("replace"), own]))).toContain("forced by `protection`");
  });

  it("a replacement without replaceReasons: the immutable fields that force it, and delete-first when the path stays", async () => {
    const key = (olds: Record<string, unknown>, news: Record<string, unknown>) => reviewPreview(preview([step("replace", T("KeymgmtKey"), "signing",
      { mount: "keymgmt", name: "signing", ...olds }, { mount: "keymgmt", name: "signing", ...news }, { id: "keymgmt/key/signing" })]));
    const sameName = await key({ type: "rsa-2048", deletionAllowed: true }, { type: "ecdsa-p256", deletionAllowed: false });
    expect(sameName).toContain("#### replace: `signing` (secrets:KeymgmtKey) `keymgmt/key/signing`\nReplacement forced by `type` (immutable); **the old object is deleted first**, then the new one created.");
    expect(sameName).toContain('- `type`: `"rsa-2048"` → `"ecdsa-p256"`');
    expect(sameName).toContain("- `deletionAllowed`: `true` → `false`");
    const renamed = await reviewPreview(preview([step("replace", T("KeymgmtKey"), "signing",
      { mount: "keymgmt", name: "signing", type: "rsa-2048" }, { mount: "keymgmt", name: "signing-v2", type: "rsa-4096" }, { id: "keymgmt/key/signing" })]));
    // The engine's reason, which the rule does not give: the rule says nothing of the order either.
    const engineOnly = await reviewPreview(preview([step("replace", T("KeymgmtKey"), "signing", { mount: "keymgmt", name: "signing", deletionAllowed: true },
      { mount: "keymgmt", name: "signing", deletionAllowed: false }, { id: "keymgmt/key/signing", replaceReasons: ["deletionAllowed"] })]));
    expect(engineOnly).toContain("Replacement forced by `deletionAllowed`; order not stated in the preview.");
    expect(renamed).toContain("`keymgmt/key/signing` → `keymgmt/key/signing-v2`\nReplacement forced by `name`, `type` (immutable); the new object is created first, then the old one deleted.");
  });

  it("a create names the path the object will have; objects the service names have none yet", async () => {
    const out = await reviewPreview(preview([
      step("create", T("TransformRole"), "support", undefined, { name: "support", transformations: ["masked"] }),
      step("create", T("KeymgmtKeyDistribution"), "to-aws", undefined, { kmsName: "aws", keyName: "signing", purpose: ["signing"] }),
      step("create", T("TransformStoreSchema"), "schema", undefined, { store: "tokens", mount: "tx", transformations: ["card"] }),
      step("create", T("TransformRole"), "later", undefined, { name: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" }),
      step("create", "pulumi-nodejs:dynamic/runs:Run", "deploy", undefined, { message: "go" }),
    ]));
    // The mount is the kind's default when absent (check fills it in before the preview is printed).
    expect(out).toContain("#### create: `support` (secrets:TransformRole) `transform/role/support`\n");
    expect(out).toContain("#### create: `to-aws` (secrets:KeymgmtKeyDistribution) `keymgmt/kms/aws/key/signing`\n");
    expect(out).toContain("#### create: `schema` (secrets:TransformStoreSchema) `tx/stores/tokens/schema`\n");
    expect(out).toContain("#### create: `later` (secrets:TransformRole)\n");
    expect(out).toContain("#### create: `deploy` (runs:Run)\n");
  });

  it("a resource under a component, whose name holds ::, is named and typed as the engine names it, its errors too", async () => {
    const own = T("TransformRole");
    const nested = `urn:pulumi:dev::p::pulumi:pulumi:Stack$acme:index:Team$${own}::team::payments`;
    const s = { ...role({ transformations: ["a"] }, { transformations: ["a", "b"] }), urn: nested };
    const json = JSON.parse(preview([s])) as { diagnostics: object[] };
    json.diagnostics = [{ urn: nested, severity: "error", message: "the role is refused\n" }];
    const { text } = await review(JSON.stringify(json));
    expect(text).toContain("- `team::payments` (secrets:TransformRole): `the role is refused`");
    expect(text).toContain("#### update: `team::payments` (secrets:TransformRole) `transform/role/payments`");
  });

  it("a delete names the object and its path, without its properties unless --full", async () => {
    const p = preview([step("delete", T("TransformAlphabet"), "old", { name: "d8", alphabet: "0123" }, undefined, { id: "transform/alphabet/d8" })]);
    const out = await reviewPreview(p);
    expect(out).toContain("#### delete: `old` (secrets:TransformAlphabet) `transform/alphabet/d8`");
    expect(out).not.toContain("0123");
    expect(await reviewPreview(p, { full: true })).toContain("- `alphabet`: `\"0123\"` → (none)");
  });

  it("a preview with no changes is one line, counting as the CLI does (the stack too)", async () => {
    const out = await reviewPreview(JSON.stringify({ steps: [{ op: "same", urn: STACK }], changeSummary: { same: 4 } }));
    expect(out).toBe("No changes: the preview plans no create, update, replace or delete (4 resources unchanged).\n");
    expect(await reviewPreview(JSON.stringify({ steps: [], changeSummary: {} }))).toBe("No changes: the preview plans no create, update, replace or delete.\n");
    expect(await reviewPreview(JSON.stringify({ steps: [{ op: "same", urn: STACK }], changeSummary: { same: 1 } }))).toContain("(1 resource unchanged)");
  });

  it("lists the side-effecting calls the preview announced, identical ones once with a count, also with no change", async () => {
    const { planned } = await import("../../src/core/planned");
    const { field } = await import("../../src/core/fields");
    const { z } = await import("zod");
    const argFields = { role: field(() => z.string()), transformation: field(() => z.string()), value: field(() => z.string(), { secret: true }) };
    const encode = planned({ name: "encode", fields: argFields }, { role: "payments", transformation: "card", value: "4111-1111-1111-1111" });
    expect(encode).not.toContain("4111");
    const diagnostics = [encode, encode, planned({ name: "rotateKey" }, { name: "signing" }), "pulumi-svc: run run-1 queued"].map((message) => ({ severity: "info", message: `${message}\n` }));
    const withCalls = (json: string) => JSON.stringify({ ...JSON.parse(json), diagnostics });
    const out = await reviewPreview(withCalls(preview([role({ tokenTtl: 1 }, { tokenTtl: 2 })])));
    expect(out).toContain("**Functions the program calls on `up`** (a preview makes no request for them):");
    expect(out).toContain('- `encode role="payments" transformation="card" (2 times)`');
    expect(out).toContain("- `rotateKey`\n");
    expect(out).not.toContain("queued");
    const none = await reviewPreview(withCalls(JSON.stringify({ steps: [{ op: "same", urn: STACK }], changeSummary: { same: 2 } })));
    expect(none.split("\n")[0]).toBe("No changes: the preview plans no create, update, replace or delete (2 resources unchanged).");
    expect(none).toContain("- `rotateKey`");
    expect(await reviewPreview(preview([role({ tokenTtl: 1 }, { tokenTtl: 2 })]))).not.toContain("Functions the program calls");
  });

  it("an update after a failed up says so, with the error the state kept; hidden __ inputs are never listed", async () => {
    const failed = step("update", "pulumi-nodejs:dynamic/runs:Run", "deploy", { workspaceId: "ws-1", __urn: "urn:x" }, { workspaceId: "ws-1", __urn: "urn:x" },
      { id: "run-1", old: { initErrors: ["run run-1 did not reach completed within 1 s (it is pending); it was discarded"] } });
    const out = await reviewPreview(preview([failed]));
    expect(out).toContain("The last `up` failed on it, so the engine updates it again: `run run-1 did not reach completed within 1 s");
    expect(out).not.toContain("No input changed");
    expect(out).not.toContain("__urn");
  });

  it("names, paths, values and errors from a server stay inside their code spans, on one line: nothing of theirs becomes Markdown", async () => {
    const evil = "x\n\n# Injected heading\n[link](https://evil.example) <img src=x> @team \u2028\u202e`` ` ``\r| a |";
    const out = await reviewPreview(preview([
      step("replace", T("TransformAlphabet"), evil, { name: evil, alphabet: evil }, { name: `${evil}2`, alphabet: evil }, { id: `transform/alphabet/${evil}`, replaceReasons: [evil] }),
      step("update", `pulumi-nodejs:dynamic/secrets:${evil}`, "other", { a: evil }, { a: `${evil}!` }, { id: evil }),
    ]));
    const json = JSON.parse(preview([])) as { diagnostics: object[] };
    json.diagnostics = [{ urn: urn(T("TransformAlphabet"), evil), severity: "error", message: `${evil}\n` }];
    const failed = (await review(JSON.stringify(json))).text;
    for (const text of [out, failed]) {
      expect(text).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}](?<!\n)/u);
      // Every line the value could have started is inside a span on a line of the review's own.
      expect(text.split("\n").filter((l) => /Injected heading/.test(l) && !/^(#### |- |\*\*|The |Replacement )/.test(l))).toEqual([]);
      expect(text).not.toMatch(/^# Injected/m);
    }
    expect(out).toContain("\\n\\n# Injected heading\\n");
  });

  it("resources of other providers: the same property diff, grouped by package, no service path", async () => {
    const out = await reviewPreview(preview([
      step("update", "aws:s3/bucket:Bucket", "site", { bucket: "site", tags: { env: "dev" } }, { bucket: "site", tags: { env: "prod" } }, { id: "site-1234" }),
      step("create", "random:index/randomPet:RandomPet", "pet", undefined, { length: 2 }),
    ]));
    expect(out).toContain("### aws");
    expect(out).toContain("#### update: `site` (aws:s3/bucket:Bucket)\n");
    expect(out).toContain('- `tags`: `{"env":"dev"}` → `{"env":"prod"}`');
    expect(out).toContain("### random");
    expect(out).toContain("- `length`: (none) → `2`");
    expect(out).not.toContain("site-1234");
  });

  describe("secrets", () => {
    const PLAIN_OLD = "old-token-plaintext-5e6f";
    const PLAIN_NEW = "new-token-plaintext-7a8b";
    const nc = (olds: Record<string, unknown>, news: Record<string, unknown>, secretOutputs = ["token"]) =>
      step("update", "pulumi-nodejs:dynamic/runs:NotificationConfiguration", "hook", { name: "ci", ...olds }, { name: "ci", ...news },
        { id: "nc-1", old: { additionalSecretOutputs: secretOutputs }, new: { additionalSecretOutputs: secretOutputs } });
    const envelope = (plaintext: string) => ({ [SECRET_SIG]: "1b47061264138c4ac30d75fd1eb44270", plaintext: JSON.stringify(plaintext) });

    it("masked on both sides ([secret], as preview --json prints them): cannot be told", async () => {
      const out = await reviewPreview(preview([nc({ token: "[secret]", enabled: true }, { token: "[secret]", enabled: false })]));
      expect(out).toContain("- `token`: secret (whether it changed cannot be told");
    });

    it("plaintext under --show-secrets, marked by additionalSecretOutputs: changed or unchanged, never printed", async () => {
      const changed = await reviewPreview(preview([nc({ token: PLAIN_OLD }, { token: PLAIN_NEW })]));
      expect(changed).toContain("- `token`: changed (secret)");
      const same = await reviewPreview(preview([nc({ token: PLAIN_OLD, enabled: true }, { token: PLAIN_OLD, enabled: false })]), { full: true });
      expect(same).toContain("- `token`: unchanged (secret)");
      for (const out of [changed, same]) for (const s of [PLAIN_OLD, PLAIN_NEW]) expect(out).not.toContain(s);
    });

    it("secret envelopes with plaintext: compared, never printed; nested in a plain property too", async () => {
      const out = await reviewPreview(preview([nc(
        { creds: { user: "svc", key: envelope(PLAIN_OLD) }, token: envelope(PLAIN_OLD) },
        { creds: { user: "svc", key: envelope(PLAIN_NEW) }, token: envelope(PLAIN_OLD) }, [])]), { full: true });
      expect(out).toContain("- `creds`: changed (secret)");
      expect(out).toContain("- `token`: unchanged (secret)");
      expect(out).not.toContain(PLAIN_OLD);
      expect(out).not.toContain(PLAIN_NEW);
    });

    it("a secret's text copied into a plain property is masked there too", async () => {
      const out = await reviewPreview(preview([nc({ token: PLAIN_OLD, note: "x" }, { token: PLAIN_NEW, note: `uses ${PLAIN_NEW}` })]));
      expect(out).not.toContain(PLAIN_NEW);
      expect(out).toContain("- `note`: `\"x\"` → `\"uses [secret]\"`");
    });

    describe("from the secret's version (`<name>Version`, kept by the provider beside each top-level secret input)", () => {
      const store = (olds: Record<string, unknown>, news: Record<string, unknown>) =>
        step("update", T("TransformStore"), "tokens", { name: "tokens", ...olds }, { name: "tokens", ...news }, { id: "transform/stores/tokens" });

      it("versions differ: changed; equal: unchanged; the version is said, the value never", async () => {
        const out = await reviewPreview(preview([
          store({ password: "[secret]", passwordVersion: 2, maxOpen: 4 }, { password: "[secret]", passwordVersion: 3, maxOpen: 4 }),
          step("update", T("TransformStore"), "other", { name: "other", password: "[secret]", passwordVersion: 1, maxOpen: 4 },
            { name: "other", password: "[secret]", passwordVersion: 1, maxOpen: 5 }, { id: "transform/stores/other" }),
        ]), { full: true });
        expect(out).toContain("- `password`: changed (secret, version 2 → 3)");
        expect(out).toContain("- `password`: unchanged (secret, version 1)");
        // The counter is said on the secret's line, not as a property of its own.
        expect(out).not.toContain("`passwordVersion`");
      });

      it("a field this package declares secret is secret by name, even in plaintext (--show-secrets): said by its version", async () => {
        const changed = await reviewPreview(preview([store({ password: PLAIN_OLD, passwordVersion: 1 }, { password: PLAIN_NEW, passwordVersion: 2 })]));
        expect(changed).toContain("- `password`: changed (secret, version 1 → 2)");
        const same = await reviewPreview(preview([store({ password: envelope(PLAIN_OLD), passwordVersion: 4, x: 1 }, { password: envelope(PLAIN_OLD), passwordVersion: 4, x: 2 })]), { full: true });
        expect(same).toContain("- `password`: unchanged (secret, version 4)");
        for (const out of [same, changed]) for (const v of [PLAIN_OLD, PLAIN_NEW]) expect(out).not.toContain(v);
      });

      it("no version on one side (state from before versions, or unknown): cannot be told", async () => {
        for (const [o, n] of [[undefined, 1], [1, "04da6b54-80e4-46f7-96ec-b56ff0331ba9"], [undefined, undefined]]) {
          const out = await reviewPreview(preview([store({ password: "[secret]", passwordVersion: o, x: 1 }, { password: "[secret]", passwordVersion: n, x: 2 })]));
          expect(out, `${o} → ${n}`).toContain("- `password`: secret (whether it changed cannot be told: the preview masks it and no version of it is recorded)");
        }
      });

      it("a secret added with its first version", async () => {
        const out = await reviewPreview(preview([store({ x: 1 }, { password: "[secret]", passwordVersion: 1, x: 1 })]));
        expect(out).toContain("- `password`: added (secret, version 1)");
      });
    });

    it("added and removed secrets", async () => {
      const out = await reviewPreview(preview([nc({ a: "[secret]" }, { token: "[secret]" }, [])]));
      expect(out).toContain("- `a`: removed (secret)");
      expect(out).toContain("- `token`: added (secret)");
    });
  });

  it("a review past 65,536 characters keeps the summary and every replacement and delete, cuts updates, says how many", async () => {
    const long = "v".repeat(150);
    const steps: Step[] = [];
    for (let i = 0; i < 400; i++) steps.push(step("update", T("TransformRole"), `role-${i}`, { name: `r${i}`, a: `${long}-${i}`, b: `${long}-b${i}` }, { name: `r${i}`, a: `${long}-${i}x`, b: `${long}-b${i}x` }, { id: `transform/role/r${i}` }));
    for (let i = 0; i < 30; i++) steps.push(step("replace", T("TransformTemplate"), `tpl-${i}`, { name: `t${i}` }, { name: `t${i}-v2` }, { id: `transform/template/t${i}`, old: { delete: true }, replaceReasons: ["name"] }));
    for (let i = 0; i < 30; i++) steps.push(step("delete", T("TransformAlphabet"), `alpha-${i}`, { name: `a${i}` }, undefined, { id: `transform/alphabet/a${i}` }));
    const out = await reviewPreview(preview(steps));
    expect(out.length).toBeLessThanOrEqual(65_536);
    expect(out.length).toBeGreaterThan(60_000);
    expect(out.startsWith("## Pulumi preview review\n\n**Plan:** 30 to replace, 30 to delete, 400 to update, 1 unchanged.")).toBe(true);
    for (let i = 0; i < 30; i++) {
      expect(out).toContain(`#### replace: \`tpl-${i}\``);
      expect(out).toContain(`#### delete: \`alpha-${i}\``);
    }
    const kept = (out.match(/#### update: /g) ?? []).length;
    expect(kept).toBeGreaterThan(50);
    expect(kept).toBeLessThan(400);
    expect(out).toContain(`**${400 - kept} more changes left out (${400 - kept} updates)** to stay within 65,536 characters`);
    // Kept updates are the first ones, in order.
    expect(out).toContain("`role-0`");
    expect(out).not.toContain("`role-399`");
  });

  it("rejects input that is not a preview, without echoing it", async () => {
    await expect(reviewPreview("not json secret-ish")).rejects.toThrow(/not JSON/);
    await expect(reviewPreview("")).rejects.toThrow(/not JSON/);
    await expect(reviewPreview(JSON.stringify({ steps: [{ urn: 3 }] }))).rejects.toThrow(/not the output of `pulumi preview --json`/);
    await expect(reviewPreview(JSON.stringify({ foo: 1 }))).rejects.toThrow("the input is not the output of `pulumi preview --json` (it has no steps, changeSummary or diagnostics)");
    await expect(reviewPreview("[]")).rejects.toThrow(/not the output of `pulumi preview --json`/);
  });

  describe("a preview that failed", () => {
    const failing = (steps: Step[], diagnostics: object[]) => {
      const json = JSON.parse(preview(steps)) as { diagnostics: object[] };
      json.diagnostics = diagnostics;
      return JSON.stringify(json);
    };
    const checkFailed = { urn: urn(T("transform:Alphabet"), "digits"), severity: "error", message: "pulumi-nodejs:dynamic/secrets:transform:Alphabet resource 'digits': property alphabet: must have at least 2 characters\n" };
    const onStack = { urn: STACK, severity: "error", message: "error: preview failed\n" };
    const info = { urn: STACK, severity: "info", message: "a log line\n" };

    it("is never \"No changes\": its errors first, each with its resource, and it counts as failed", async () => {
      const { text, failed } = await review(failing([], [info, checkFailed, checkFailed, onStack]));
      expect(failed).toBe(true);
      expect(text).not.toContain("No changes");
      expect(text).toBe([
        "## Pulumi preview review",
        "",
        "**⛔ The preview failed** with 2 errors: nothing can be applied until they are fixed, and the plan below stops where the preview did.",
        "",
        "- `digits` (secrets:transform:Alphabet): `pulumi-nodejs:dynamic/secrets:transform:Alphabet resource 'digits': property alphabet: must have at least 2 characters`",
        "- the program: `preview failed`",
        "",
        "**Plan:** no change planned before the preview stopped (1 resource unchanged).",
        "",
      ].join("\n"));
    });

    it("with a partial plan: the errors above the plan, the plan after them", async () => {
      const { text, failed } = await review(failing([role({ tokenTtl: 1 }, { tokenTtl: 2 })], [checkFailed]));
      expect(failed).toBe(true);
      const lines = text.split("\n");
      expect(lines.findIndex((l) => l.startsWith("**⛔ The preview failed** with 1 error: nothing can be applied until it is fixed"))).toBeLessThan(lines.findIndex((l) => l.startsWith("**Plan:** 1 to update")));
      expect(text).toContain("#### update: `payments`");
    });

    it("a preview with warnings only did not fail", async () => {
      const { failed, text } = await review(failing([], [{ ...info, severity: "warning" }]));
      expect(failed).toBe(false);
      expect(text).toMatch(/^No changes/);
    });
  });

  describe("data at risk, as each kind declares it", () => {
    const R = (kind: string) => `pulumi-nodejs:dynamic/runs:${kind}`;
    const section = (text: string) => text.split("### ⚠️ Data at risk")[1]?.split("\n\n**")[0] ?? "";
    const key = (op: string, olds: Record<string, unknown>, news: Record<string, unknown>, extra = {}) =>
      step(op, T("KeymgmtKey"), "signing", { name: "k", type: "aes256-gcm96", ...olds }, { name: "k", type: "aes256-gcm96", ...news }, { id: "keymgmt/key/k", ...extra });

    it("a replaced key: what is lost and the safer way, in a section above the plan's details; a harmless update is never there", async () => {
      const text = await reviewPreview(preview([key("replace", {}, { type: "rsa-2048" }, { replaceReasons: ["type"] }), role({ transformations: ["a"] }, { transformations: ["a", "b"] })]));
      expect(text.indexOf("### ⚠️ Data at risk: 1 change loses or strands data")).toBeGreaterThan(0);
      expect(text.indexOf("### ⚠️ Data at risk")).toBeLessThan(text.indexOf("**Replacements and deletes:**"));
      expect(section(text)).toContain("- `signing` (secrets:KeymgmtKey): replaced: every version of the key's material is destroyed");
      expect(section(text)).toContain("**Instead:** a new version of the same key (`rotateKey`, or `rotationTrigger`) instead of a new key");
      expect(section(text)).not.toContain("payments");
      expect(await reviewPreview(preview([key("update", { deletionAllowed: false }, { deletionAllowed: true })]))).not.toContain("Data at risk");
      expect(section(await reviewPreview(preview([key("update", { minEnabledVersion: 1 }, { minEnabledVersion: 3 })]))))
        .toContain("`minEnabledVersion` changed: versions below the new minimum can no longer decrypt or verify");
    });

    it("an alphabet or template only while something in the plan uses it", async () => {
      const alphabet = step("update", T("TransformAlphabet"), "digits", { name: "digits", alphabet: "0123" }, { name: "digits", alphabet: "01234" }, { id: "transform/alphabet/digits" });
      expect(await reviewPreview(preview([alphabet]))).not.toContain("Data at risk");
      const template = step("same", T("TransformTemplate"), "ssn", { name: "ssn", alphabet: "digits", pattern: "(\\d+)" }, { name: "ssn", alphabet: "digits", pattern: "(\\d+)" });
      // A template no transformation names encodes nothing: its alphabet is not in use.
      expect(await reviewPreview(preview([alphabet, template]))).not.toContain("Data at risk");
      const fpe = step("same", T("TransformFpeTransformation"), "card", { name: "card", template: "ssn" }, { name: "card", template: "ssn" });
      expect(section(await reviewPreview(preview([alphabet, template, fpe]))))
        .toContain("- `digits` (secrets:TransformAlphabet): `alphabet` changed: values encoded through a template that uses it no longer decode");
      // A preview made without --show-sames hides unchanged users: said, not guessed either way.
      const hidden = JSON.parse(preview([alphabet], 3)) as { changeSummary: Record<string, number> };
      expect(section(await reviewPreview(JSON.stringify(hidden)))).toContain("(if an unchanged TransformTemplate uses it: this preview lists no unchanged resources");
    });

    it("a notification configuration's token (by its version) and URL; its triggers are harmless", async () => {
      const nc = (olds: Record<string, unknown>, news: Record<string, unknown>) =>
        step("update", R("NotificationConfiguration"), "hook", { name: "h", url: "https://a", ...olds }, { name: "h", url: "https://a", ...news }, { id: "nc-1" });
      const token = section(await reviewPreview(preview([nc({ token: "[secret]", tokenVersion: 1 }, { token: "[secret]", tokenVersion: 2 })])));
      expect(token).toContain("`token` changed: deliveries are signed with the new token");
      expect(token).not.toContain("url");
      expect(section(await reviewPreview(preview([nc({}, { url: "https://b" })])))).toContain("`url` changed: deliveries go to the new URL");
      expect(await reviewPreview(preview([nc({ triggers: ["run:completed"] }, { triggers: [] })]))).not.toContain("Data at risk");
    });

    it("creating a secondary wipes it; deleting a primary only when it disables replication", async () => {
      const secondary = step("create", T("ReplicationPerformanceSecondary"), "dr", undefined, { primaryApiAddr: "https://p", acknowledgeDataWipe: true });
      expect(section(await reviewPreview(preview([secondary])))).toContain("- `dr` (secrets:ReplicationPerformanceSecondary): created: activating the secondary wipes");
      const primary = (disableOnDelete: boolean) => step("delete", T("ReplicationPerformancePrimary"), "primary", { disableOnDelete }, undefined, { id: "sys/replication/performance/primary" });
      expect(await reviewPreview(preview([primary(false)]))).not.toContain("Data at risk");
      expect(section(await reviewPreview(preview([primary(true)])))).toContain("deleted: replication is disabled on the cluster");
    });

    it("--fail-on-risk exits 3 when anything is at risk, 0 otherwise; the review is printed either way", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "risk-"));
      fs.writeFileSync(`${dir}/risky.json`, preview([key("replace", {}, { type: "rsa-2048" }, { replaceReasons: ["type"] })]));
      fs.writeFileSync(`${dir}/calm.json`, preview([role({ transformations: ["a"] }, { transformations: ["b"] })]));
      const risky = await main(["--fail-on-risk", `${dir}/risky.json`]);
      expect(risky.code).toBe(3);
      expect(risky.out).toContain("Data at risk");
      expect((await main([`${dir}/risky.json`])).code).toBe(0);
      expect((await main(["--fail-on-risk", `${dir}/calm.json`])).code).toBe(0);
      fs.rmSync(dir, { recursive: true, force: true });
    });
  });

  describe("drift, from a refresh's event log", () => {
    const alpha = T("TransformAlphabet");
    const state = (name: string, alphabet: string) => ({ urn: urn(alpha, name), type: alpha, id: `transform/alphabet/${name}`,
      inputs: { __provider: PROVIDER, name, alphabet }, outputs: { __provider: PROVIDER, name, alphabet } });
    const log = (events: object[]) => events.map((e) => JSON.stringify(e)).join("\n");
    const pre = (name: string) => ({ resourcePreEvent: { metadata: { op: "refresh", urn: urn(alpha, name) } } });
    const out = (op: string, name: string, old: object, next: object | null) => ({ resOutputsEvent: { metadata: { op, urn: urn(alpha, name), old, new: next } } });

    it("lists what changed outside Pulumi, old → new, and what is gone; nothing at risk", async () => {
      const text = await reviewPreview(log([
        pre("digits"), pre("gone"), pre("same"),
        out("update", "digits", state("digits", "0123"), state("digits", "01234")),
        out("delete", "gone", state("gone", "01"), null),
        out("same", "same", state("same", "01"), state("same", "01")),
        { summaryEvent: { resourceChanges: { update: 1, delete: 1, same: 2 } } },
      ]));
      expect(text).toContain("## Pulumi refresh review: drift");
      expect(text).toContain("**Drift:** 1 gone from the server, 1 changed outside Pulumi.");
      expect(text).toContain("#### changed outside Pulumi: `digits` (secrets:TransformAlphabet) `transform/alphabet/digits`");
      expect(text).toContain('- `alphabet`: `"0123"` → `"01234"`');
      expect(text).not.toContain("`same`");
      expect(text).not.toContain("Data at risk");
    });

    it("a refresh whose outputs alone changed (a key rotated by hand), which the engine calls same, is drift", async () => {
      const key = T("KeymgmtKey");
      const k = (latestVersion: number) => ({ urn: urn(key, "signing"), type: key, id: "keymgmt/key/signing",
        inputs: { __provider: PROVIDER, name: "signing", type: "ecdsa-p256" }, outputs: { __provider: PROVIDER, name: "signing", type: "ecdsa-p256", latestVersion } });
      const text = await reviewPreview(log([
        { resourcePreEvent: { metadata: { op: "refresh", urn: urn(key, "signing") } } },
        { resOutputsEvent: { metadata: { op: "same", urn: urn(key, "signing"), old: k(1), new: k(2) } } },
        { summaryEvent: { resourceChanges: { same: 2 } } },
      ]));
      expect(text).toContain("#### changed outside Pulumi: `signing` (secrets:KeymgmtKey) `keymgmt/key/signing`");
      expect(text).toContain("- `latestVersion`: `1` → `2`");
    });

    it("an event log that is not a refresh's is refused with one line", async () => {
      await expect(reviewPreview(log([out("update", "digits", state("digits", "0123"), state("digits", "01234")), { summaryEvent: { resourceChanges: { update: 1 } } }])))
        .rejects.toThrow(/^the event log is not a refresh's/);
    });
  });

  describe("drift, from `pulumi preview --refresh --show-sames --json` (CLI v3.259's layout)", () => {
    const alpha = T("TransformAlphabet");
    const key = T("KeymgmtKey");
    // Each resource's refresh step holds its state as recorded; the preview's steps, after them,
    // hold what the refresh read as their old state.
    const st = (type: string, name: string, id: string, outputs: Record<string, unknown>) =>
      ({ urn: urn(type, name), type, id, inputs: { __provider: PROVIDER, ...outputs }, outputs: { __provider: PROVIDER, __urn: urn(type, name), ...outputs } });
    const digits = (alphabet: string) => st(alpha, "digits", "transform/alphabet/digits", { name: "digits", alphabet });
    const spare = st(alpha, "spare", "transform/alphabet/spare", { name: "spare", alphabet: "01" });
    const calm = st(alpha, "calm", "transform/alphabet/calm", { name: "calm", alphabet: "ab" });
    const signing = (latestVersion: number) => st(key, "signing", "keymgmt/key/signing", { name: "signing", type: "ecdsa-p256", latestVersion });
    const refresh = (state: { urn: string }) => ({ op: "refresh", urn: state.urn, oldState: state, newState: state });
    const json = (planned: object[], changeSummary: Record<string, number>) => JSON.stringify({
      config: {},
      steps: [{ op: "refresh", urn: STACK }, refresh(digits("0123456789")), refresh(spare), refresh(calm), refresh(signing(1)), { op: "same", urn: STACK }, ...planned],
      changeSummary,
    });
    const withSames = json([
      { op: "create", urn: spare.urn, newState: { ...spare, id: undefined, outputs: undefined } },
      { op: "same", urn: calm.urn, oldState: calm, newState: calm },
      { op: "same", urn: signing(2).urn, oldState: signing(2), newState: { ...signing(2), outputs: {} } },
      { op: "update", urn: digits("").urn, oldState: digits("0123456789AB"), newState: { ...digits("0123456789"), outputs: {} } },
    ], { create: 1, update: 1, same: 3 });

    it("--drift: each object changed outside Pulumi, outputs included, and each gone; the next up's plan in one line", async () => {
      const { text, atRisk } = await review(withSames, { drift: true });
      expect(text).toContain("## Pulumi refresh review: drift");
      expect(text).toContain("**Drift:** 1 gone from the server, 2 changed outside Pulumi.");
      expect(text).toContain("#### changed outside Pulumi: `digits` (secrets:TransformAlphabet) `transform/alphabet/digits`");
      expect(text).toContain('- `alphabet`: `"0123456789"` → `"0123456789AB"`');
      expect(text).toContain("#### changed outside Pulumi: `signing` (secrets:KeymgmtKey) `keymgmt/key/signing`");
      expect(text).toContain("- `latestVersion`: `1` → `2`");
      expect(text).toContain("#### gone from the server: `spare` (secrets:TransformAlphabet) `transform/alphabet/spare`");
      expect(text).toContain("**The next `pulumi up`** (planned against what the refresh read): 1 to update, 1 to create; it puts back what the program declares.");
      expect(text).not.toContain("`calm`");
      expect(text).not.toContain("__urn");
      expect(atRisk).toBe(0);
    });

    it("without --drift: the plan, made against what the refresh read, and a line saying what the refresh found", async () => {
      const text = await reviewPreview(withSames);
      expect(text).toContain("## Pulumi preview review");
      expect(text).toContain("**Plan:** 1 to update, 1 to create, 3 unchanged.");
      expect(text).toContain("**Drift:** the preview refreshed first and found 2 changed outside Pulumi, 1 gone from the server; this plan is made against what it read. `pulumi-svc-review --drift` on the same JSON lists each, old → new.");
      expect(text).toContain("#### update: `digits` (secrets:TransformAlphabet) `transform/alphabet/digits`");
      expect(text).toContain('- `alphabet`: `"0123456789AB"` → `"0123456789"`');
      expect(text).not.toContain("refresh:");
    });

    it("without --show-sames the resources the plan leaves alone are not compared, and the review says how to compare them", async () => {
      const text = await reviewPreview(json([
        { op: "create", urn: spare.urn, newState: { ...spare, id: undefined, outputs: undefined } },
        { op: "update", urn: digits("").urn, oldState: digits("0123456789AB"), newState: { ...digits("0123456789"), outputs: {} } },
      ], { create: 1, update: 1, same: 3 }), { drift: true });
      expect(text).toContain("**Drift:** 1 gone from the server, 1 changed outside Pulumi, 2 not compared.");
      expect(text).toContain("give it `--show-sames` (`pulumi preview --refresh --show-sames --json > drift.json`) to compare them too.");
      expect(text).not.toContain("latestVersion");
    });

    it("nothing changed: one line", async () => {
      const text = await reviewPreview(JSON.stringify({ steps: [{ op: "refresh", urn: STACK }, refresh(calm), { op: "same", urn: STACK }, { op: "same", urn: calm.urn, oldState: calm, newState: calm }], changeSummary: { same: 2 } }), { drift: true });
      expect(text).toBe("No drift: the refresh found every object as the state records it (2 resources unchanged).\n\n**The next `pulumi up`** (planned against what the refresh read): no change.\n");
    });

    describe("a registry access config, which a refresh sees only where the service reports it (issue 52)", () => {
      const access = T("RegistryAccessConfig");
      const config = (readable: boolean | undefined) => st(access, "access", "registry/config/access",
        { mount: "registry", address: "registry.internal:8500", scheme: "http", ...(readable === undefined ? {} : { __readable: readable }) });
      const gone = (state: { urn: string }) => ({ op: "create", urn: state.urn, newState: { ...state, id: undefined, outputs: undefined } });
      const drifted = (recorded: object[], planned: object[], changeSummary: Record<string, number>) => JSON.stringify({
        config: {}, steps: [{ op: "refresh", urn: STACK }, ...recorded.map((r) => refresh(r as { urn: string })), { op: "same", urn: STACK }, ...planned], changeSummary,
      });
      const blind = "the service does not report registry/config/access (its GET answers 404 or 405), so whether the config is still there cannot be known";

      it("deleted where the service reports it: gone, with the rest", async () => {
        const text = await reviewPreview(drifted([spare, config(true)], [gone(spare), gone(config(true))], { create: 2, same: 1 }), { drift: true });
        expect(text).toContain("**Drift:** 2 gone from the server.");
        expect(text).toContain("#### gone from the server: `access` (secrets:RegistryAccessConfig) `registry/config/access`");
      });

      it("where the service does not report it (or the state predates knowing): not known, never unchanged, with the reason", async () => {
        for (const readable of [false, undefined]) {
          const held = config(readable);
          const text = await reviewPreview(drifted([spare, held], [gone(spare), { op: "same", urn: held.urn, oldState: { ...held, outputs: { ...held.outputs, __readable: false } }, newState: held }], { create: 1, same: 2 }), { drift: true });
          expect(text).toContain("**Drift:** 1 gone from the server, 1 not known.");
          expect(text).toContain("**Not known:** the refresh cannot tell whether this object is still on the server as recorded, so it is counted neither unchanged nor gone:");
          expect(text).toContain(`- \`access\` (secrets:RegistryAccessConfig) \`registry/config/access\`: ${blind}`);
          expect(text).not.toContain("unchanged)");
        }
        // Alone, it is no "No drift" line either; and the plan review says what the refresh could not see.
        const alone = drifted([config(false)], [{ op: "same", urn: config(false).urn, oldState: config(false), newState: config(false) }], { same: 2 });
        expect(await reviewPreview(alone, { drift: true })).toContain("**Drift:** 1 not known.");
        expect(await reviewPreview(alone)).toContain("**Drift:** the preview refreshed first and found 1 not known (the service does not report it);");
      });

      it("from a refresh's event log too", async () => {
        const held = config(false);
        const text = await reviewPreview([
          { resourcePreEvent: { metadata: { op: "refresh", urn: held.urn } } },
          { resOutputsEvent: { metadata: { op: "same", urn: held.urn, old: held, new: held } } },
          { summaryEvent: { resourceChanges: { same: 2 } } },
        ].map((e) => JSON.stringify(e)).join("\n"));
        expect(text).toContain("**Drift:** 1 not known.");
      });
    });

    it("--drift on a preview that did not refresh is refused with one line, exit 1", async () => {
      await expect(review(preview([role({ transformations: ["a"] }, { transformations: ["b"] })]), { drift: true }))
        .rejects.toThrow("--drift reviews what a refresh read, and this preview did not refresh: make it with `pulumi preview --refresh --show-sames --json > drift.json`");
    });
  });

  it("arguments: --full, a file or - for standard input", async () => {
    expect(parseArgs([])).toEqual({ full: false, failOnRisk: false });
    expect(parseArgs(["--full", "p.json"])).toEqual({ full: true, failOnRisk: false, file: "p.json" });
    expect(parseArgs(["-"])).toEqual({ full: false, failOnRisk: false, file: "-" });
    expect(parseArgs(["--help"])).toBe("help");
    expect(parseArgs(["--drift", "d.json"])).toEqual({ full: false, failOnRisk: false, drift: true, file: "d.json" });
    expect(() => parseArgs(["--nope"])).toThrow(/unknown option/);
    expect(() => parseArgs(["a", "b"])).toThrow(/one input file/);
  });
});
