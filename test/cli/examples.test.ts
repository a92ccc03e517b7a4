// Every example under the real Pulumi CLI: preview --diff, up, up again (no changes), step2,
// refresh after out-of-band edits, destroy; the exported state scanned for secrets. What each example
// must show is in its examples/<name>/cli.json.
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { control } from "../support/emulator";
import { skipWithoutPostgres } from "../support/postgres";
import { root } from "../support/dist";
import { changedProperties, CliStack, describeCli, ops, type JsonResult } from "./cli";
import { examples, outputValues, prepareExample, serviceCall, serviceRequest, type Example, type Prepared } from "./expectations";
import { checkReview } from "./review-golden";
import { exampleSecrets, leakedPlaces, SECRET, SECRET_SIG, secretMaterial } from "./secret-scan";

let emu: Emulator;

beforeAll(async () => {
  // A second secrets cluster for the replication example; the others use cluster 0 only.
  emu = await startEmulator({ clusters: 2 });
});

afterAll(async () => {
  await emu?.close();
});


/** No secret text in the export. A failure names where each leaked secret came from, never the secret. */
function expectHidden(exported: string, secrets: Map<string, string[]>): void {
  expect(leakedPlaces(exported, secrets), "secrets in plaintext in pulumi stack export").toEqual([]);
}

function expectNoError(r: JsonResult & { code: number; text: string }): void {
  if (r.code !== 0) throw new Error(`the CLI failed (exit ${r.code}):\n${r.text}`);
}

describeCli("every example under the real Pulumi CLI", () => {
  it("finds the examples, each with its cli.json", () => {
    const all = examples();
    expect(all.map((e) => e.name)).toEqual(expect.arrayContaining(["directory", "identity", "keymgmt", "quickstart", "registry", "replication", "runs", "transform"]));
    for (const e of all) expect(e.expectations, `examples/${e.name}/cli.json is missing (format: docs/contributing.md)`).toBeDefined();
  });

  // SVC_CLI_EXAMPLES=quickstart,runs narrows the run while working on one example.
  const only = process.env.SVC_CLI_EXAMPLES?.split(",");
  for (const example of examples().filter((e) => e.expectations && (!only || only.includes(e.name)))) describeExample(example);
});

function describeExample({ name, expectations: x }: Example): void {
  const exp = x!;
  const hasStep2 = fs.existsSync(path.join(root, "examples", name, "step2"));
  describe.skipIf(exp.postgres !== undefined && skipWithoutPostgres())(`examples/${name}`, () => {
    let stack: CliStack;
    let prepared: Prepared | undefined;
    /** The secret texts of the first up's state, and step2's preview --json, for the review's checks. */
    let material = new Map<string, string[]>();
    let step2Preview = "";
    let step2Paths: Record<string, string | undefined> = {};
    const step2Ops = () => Object.fromEntries(Object.entries(exp.step2).filter(([, s]) => s.op !== "same").map(([n, s]) => [n, s.op]));
    const secretValues = () => exampleSecrets(exp, emu, prepared);

    beforeAll(async () => {
      prepared = await prepareExample(exp, emu);
      stack = await CliStack.create({ project: exp.project, program: { example: name }, config: prepared.config, secretConfig: prepared.secretConfig });
    });

    afterAll(async () => {
      stack?.remove();
      await prepared?.close();
    });

    it("preview --diff plans a create of every resource, without a write to either service", async () => {
      await control(emu, "DELETE", "/requests");
      const r = await stack.preview(["--diff"]);
      expectNoError(r);
      expect(ops(r)).toEqual(Object.fromEntries(exp.create.map((n) => [n, "create"])));
      const writes = (await control<{ requests: { method: string; path: string }[] }>(emu, "GET", "/requests")).requests
        .filter((q) => !["GET", "LIST"].includes(q.method)).map((q) => `${q.method} ${q.path}`);
      expect(writes).toEqual([]);
    });

    it("up creates them, with the expected outputs and progress messages", async () => {
      const text = await stack.run(["up", "--yes", "--skip-preview"]);
      if (text.code !== 0) throw new Error(`up failed:\n${text.stdout}\n${text.stderr}`);
      expect(text.stdout).toMatch(new RegExp(`${exp.create.length + 1} created`));
      expect(await stack.outputs()).toMatchObject(exp.outputs ?? {});
      for (const [resource, lines] of Object.entries(exp.progress ?? {})) {
        for (const line of lines) expect(text.stdout, `${resource} progress`).toContain(line);
      }
    });

    it("stores no secret in plaintext and marks every secret output secret", async () => {
      const exported = await stack.exportText();
      const { deployment } = JSON.parse(exported) as { deployment: { resources: { urn: string; type: string; outputs?: Record<string, any> }[] } };
      for (const [resource, props] of Object.entries(exp.secretOutputs ?? {})) {
        const r = deployment.resources.find((q) => q.urn.endsWith(`::${resource}`))!;
        for (const p of props) expect(r.outputs?.[p]?.[SECRET_SIG], `${resource}.${p} is a secret`).toBe(SECRET);
      }
      // Every secret stack output (the CLI shows it as [secret]) is stored as a secret.
      const shown = await stack.outputs(false);
      const stackOutputs = deployment.resources.find((q) => q.type === "pulumi:pulumi:Stack")?.outputs ?? {};
      const secretKeys = Object.keys(shown).filter((k) => shown[k] === "[secret]");
      for (const k of secretKeys) expect(stackOutputs[k]?.[SECRET_SIG], `stack output ${k} is a secret`).toBe(SECRET);
      // The plaintext of every secret the state holds (config, resource inputs and outputs, stack
      // outputs: service-generated tokens and passwords too) appears nowhere in the export.
      material = await secretMaterial(stack, prepared!.config);
      for (const [resource, props] of Object.entries(exp.secretOutputs ?? {})) {
        for (const p of props) expect(material.get(`${resource}.${p}`)?.length, `${resource}.${p} holds secret text`).toBeGreaterThan(0);
      }
      for (const k of secretKeys) expect(material.has(`output.${k}`), `stack output ${k} is read back`).toBe(true);
      expectHidden(exported, new Map([...secretValues(), ...material]));
    });

    it("a second up changes nothing (no perpetual diff under the real engine)", async () => {
      await control(emu, "DELETE", "/requests");
      const r = await stack.up();
      expectNoError(r);
      expect(ops(r)).toEqual({});
      const writes = (await control<{ requests: { method: string; path: string }[] }>(emu, "GET", "/requests")).requests
        .filter((q) => !["GET", "LIST"].includes(q.method)).map((q) => `${q.method} ${q.path}`);
      expect(writes).toEqual(exp.functionCalls ?? []);
    });

    if (hasStep2) {
      it("step2: preview --diff shows the planned operations and the changed property names", async () => {
        stack.step2();
        const r = await stack.preview();
        expectNoError(r);
        expect(ops(r)).toEqual(step2Ops());
        const { code: _code, text: _text, ...printed } = r;
        step2Preview = JSON.stringify(printed);
        const text = await stack.ok(["preview", "--diff"]);
        const changed = changedProperties(text.stdout);
        for (const [n, s] of Object.entries(exp.step2)) {
          if (s.properties) expect(changed[n] ?? [], `${n}: ${text.stdout}`).toEqual(expect.arrayContaining(s.properties));
        }
      });

      it("step2: pulumi-svc-review names each change old → new, each replacement's reason and order, no secret (docs/review.md)", async () => {
        expect(step2Preview, "the step2 preview ran").not.toBe("");
        const shown = (await stack.ok(["preview", "--json", "--show-secrets"])).stdout;
        step2Paths = await checkReview(exp, step2Preview, shown, [...secretValues(), ...material]);
      });

      it("step2: up applies the plan, replacements in the order the provider asks for", async () => {
        const r = await stack.up();
        expectNoError(r);
        expect(ops(r)).toEqual(step2Ops());
        for (const [n, s] of Object.entries(exp.step2)) {
          if (s.deleteFirst === undefined) continue;
          const order = r.steps.filter((q) => q.urn.endsWith(`::${n}`)).map((q) => q.op);
          const del = order.indexOf("delete-replaced");
          const create = order.indexOf("create-replacement");
          expect(del >= 0 && create >= 0, order.join(",")).toBe(true);
          expect(del < create, `${n}: ${order.join(", ")}`).toBe(s.deleteFirst);
        }
        expect(await stack.outputs()).toMatchObject(exp.step2Outputs ?? {});
        const again = await stack.up();
        expect(ops(again)).toEqual({});
        const exported = await stack.exportText();
        expectHidden(exported, new Map([...secretValues(), ...(await secretMaterial(stack, prepared!.config))]));
        // The path the review gave each created object is the id it got.
        const ids = Object.fromEntries((JSON.parse(exported) as { deployment: { resources: { urn: string; id?: string }[] } }).deployment.resources
          .map((q) => [q.urn.split("::").pop()!, q.id]));
        for (const [n, p] of Object.entries(step2Paths)) if (p !== undefined) expect(p, `${n}'s path in the review`).toBe(ids[n]);
      });
    }

    const change = exp.outOfBand?.change;
    if (change) {
      it(`refresh picks up an out-of-band change of ${change.resource}; the next up puts it back`, async () => {
        expect(await serviceRequest(emu, change.request, outputValues(await stack.outputs(false)))).toBeLessThan(300);
        const r = await stack.refresh();
        expectNoError(r);
        // Refresh reports each resource as "refresh"; what changed is in the summary and the state.
        expect(r.changeSummary).toMatchObject({ update: 1 });
        const refreshed = (await stack.state()).resources.find((q) => q.urn.endsWith(`::${change.resource}`))!;
        expect(refreshed.outputs).toMatchObject(change.outputs);
        // Refresh records what it read as the resource's inputs, so --diff names each property the
        // update will put back (the engine lists changed inputs).
        const planned = await stack.preview();
        expect(ops(planned)).toEqual({ [change.resource]: "update" });
        const diffText = await stack.ok(["preview", "--diff"]);
        expect(changedProperties(diffText.stdout)[change.resource]).toEqual(expect.arrayContaining(Object.keys(change.outputs)));
        const up = await stack.up();
        expectNoError(up);
        expect(ops(up)[change.resource]).toBe("update");
        expect(ops(await stack.preview())).toEqual({});
      });
    }

    const gone = exp.outOfBand?.delete;
    if (gone) {
      it(`refresh drops ${gone.resource} deleted out of band; the next up creates it again`, async () => {
        expect(await serviceRequest(emu, gone.request, outputValues(await stack.outputs(false)))).toBeLessThan(300);
        const r = await stack.refresh();
        expectNoError(r);
        expect(r.changeSummary).toMatchObject({ delete: 1 });
        expect((await stack.state()).resources.map((q) => q.urn)).not.toContainEqual(expect.stringMatching(`::${gone.resource}$`));
        const up = await stack.up();
        expectNoError(up);
        expect(ops(up)[gone.resource]).toBe("create");
      });
    }
    if (!exp.outOfBand) it.skip(`no out-of-band edit: ${exp.outOfBandNote ?? "cli.json has no outOfBand"}`, () => {});

    it("destroy removes everything; the state is empty", async () => {
      const r = await stack.destroy();
      expectNoError(r);
      const deleted = Object.entries(ops(r)).filter(([, op]) => op === "delete").map(([n]) => n);
      expect(deleted.sort()).toEqual(Object.keys(hasStep2 ? exp.step2 : Object.fromEntries(exp.create.map((n) => [n, 1]))).sort());
      expect((await stack.state()).resources ?? []).toEqual([]);
      for (const left of exp.afterDestroy ?? []) {
        const answer = await serviceCall(emu, left.request);
        expect(answer.status, `${left.request.method} ${left.request.path}`).toBe(left.status ?? 200);
        expect(answer.body?.data, `${left.request.method} ${left.request.path}`).toMatchObject(left.data);
      }
    });
  });
}
