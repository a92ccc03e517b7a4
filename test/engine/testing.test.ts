// pulumi-svc/testing (docs/testing.md): a user's infrastructure test of a Pulumi program, as the
// built package runs it. An inline program runs in this process, a program folder in a child.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { openStacks, svc, testStack, threeObjects, type testingTypes } from "../support/testing";

const open = openStacks();
const program = threeObjects;

// Each test runs several deployments, each a provider host of its own, on 2 shared cores.
describe("testStack", { timeout: 180_000 }, () => {
  it("an inline program: up, the server's objects, preview of no change and of an edit, a failing up's one line, a fault, refresh after an out-of-band delete, destroy, close", async () => {
    // One retry (the default is 4): the 503 below fails the update after it, without waiting out four backoffs.
    const stack = await testStack({ program: program("one"), config: { hookToken: { secret: "t0ken-one" }, "svc:maxRetries": "1" } });
    open.push(stack);

    const up = await stack.up();
    expect(up.changes).toEqual({ create: 3 });
    expect(up.outputs).toEqual({ template: { value: "one-tpl", secret: false }, hookToken: { value: "t0ken-one", secret: true } });
    expect((await stack.request("secrets", "GET", "/transform/template/one-tpl")).body.data).toMatchObject({ pattern: "(\\d{4})-(\\d{4})", alphabet: "one-digits" });
    // The state on disk keeps the secret encrypted.
    expect(fs.readFileSync(path.join(stack.dir, "stack.json"), "utf8")).not.toContain("t0ken-one");

    expect((await stack.preview()).changes).toEqual({ same: 3 });

    // An edit: the template's pattern changes in place. New names replace each object at its new
    // path, each deleted first (every kind's default): what names a replaced object through a
    // reference goes before it and comes back after it, the fpe transformation first.
    stack.setProgram(program("one", "(\\d{4})-(\\d{6})"));
    const edited = await stack.preview();
    expect(edited.changes).toEqual({ same: 2, update: 1 });
    expect(edited.steps.find((s) => s.op === "update")).toMatchObject({ name: "tpl", changed: ["pattern"], replaceReasons: [] });
    stack.setProgram(program("two"));
    const renamed = await stack.preview();
    expect(renamed.steps.map((s) => [s.name, s.op, s.replaceReasons, s.deleteBeforeReplace])).toEqual([
      ["card", "replace", [], true], ["tpl", "replace", [], true], ["digits", "replace", ["name"], true],
    ]);

    // A failing program: the one line a user sees, no stack frame; nothing changed.
    stack.setProgram(program("one", "no-group"));
    const failed = await stack.up().catch((e: Error) => e);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toBe("pulumi-nodejs:dynamic/secrets:TransformTemplate resource 'tpl' has a problem: pattern: must contain at least one capture group: the group selects the characters to transform");

    // The service answering 503: the update fails with the provider's one line; the fault was met.
    stack.setProgram(program("one", "(\\d{4})-(\\d{6})"));
    await stack.control("POST", "/faults", { method: "POST", path: "/v1/transform/template/*", status: 503, count: 20 });
    const unavailable = (await stack.up().catch((e: Error) => e)) as testingTypes.StackError;
    await stack.control("DELETE", "/faults");
    expect(unavailable.message).toMatch(/^update tpl: POST \/transform\/template\/one-tpl: 503 /);
    expect(unavailable.message).not.toContain("\n");
    expect(unavailable.result.steps.find((s) => s.error)?.name).toBe("tpl");

    // The program's own failure (a function's Output form refused): its one line; the rejection is
    // the stack's, not an unhandled one of this file. Its resources are as the state has them: an
    // update would race the failure (a warm provider host makes it before the program fails).
    stack.setProgram(() => {
      program("one")();
      svc.secrets.transform.listAlphabetsOutput({});
    });
    await stack.control("POST", "/faults", { method: "LIST", path: "/v1/transform/alphabet*", status: 403, count: 100 });
    const refused = (await stack.up().catch((e: Error) => e)) as Error;
    await stack.control("DELETE", "/faults");
    expect(refused.message).toBe("program failed: listAlphabets: GET /transform/alphabet?list=true: 403 Forbidden: injected fault (HTTP 403); check the token (from stack config svc:secretsToken)");

    // Deleted outside the program: refresh drops it; the next up creates it again, and makes the
    // template's update that the 503 refused.
    expect((await stack.request("secrets", "DELETE", "/transform/transformation/one-card")).status).toBe(204);
    stack.setProgram(program("one", "(\\d{4})-(\\d{6})"));
    expect((await stack.refresh()).changes).toEqual({ refresh: 2, "read-gone": 1 });
    expect((await stack.up()).changes).toEqual({ same: 1, update: 1, create: 1 });

    expect((await stack.destroy()).changes).toEqual({ delete: 3 });
    expect((await stack.request("secrets", "GET", "/transform/template/one-tpl")).status).toBe(404);
    const dir = stack.dir;
    await stack.close();
    expect(fs.existsSync(dir)).toBe(false);
    expect(await fetch(`${stack.emulator.controlUrl}/faults`).then(() => "open", () => "closed")).toBe("closed");
  });

  it("three stacks at once, each with its own emulator, config and state: two inline programs and a TypeScript program folder", async () => {
    // Inside the package, so that the folder's require("pulumi-svc") finds it as an installed one would be.
    const folder = fs.mkdtempSync(path.join(root, "dist", "testing-folder-"));
    fs.writeFileSync(path.join(folder, "index.ts"), [
      'import * as pulumi from "@pulumi/pulumi";',
      'import * as svc from "pulumi-svc";',
      'const name: string = new pulumi.Config().require("name");',
      'const digits = new svc.secrets.transform.Alphabet("digits", { name, alphabet: "0123456789" });',
      "export const alphabet = digits.name;",
      "",
    ].join("\n"));
    try {
      const [a, b, c] = await Promise.all([
        testStack({ program: program("a"), config: { hookToken: { secret: "t0ken-a" } } }),
        testStack({ program: program("b"), config: { hookToken: { value: "t0ken-b", secret: true } } }),
        testStack({ dir: folder, cwd: root, config: { name: "from-folder" } }),
      ]);
      open.push(a, b, c);
      const [upA, upB, upC] = await Promise.all([a.up(), b.up(), c.up()]);
      expect([upA.outputs.hookToken, upB.outputs.hookToken]).toEqual([{ value: "t0ken-a", secret: true }, { value: "t0ken-b", secret: true }]);
      expect(upC).toMatchObject({ changes: { create: 1 }, outputs: { alphabet: { value: "from-folder", secret: false } } });
      const alphabets = async (s: testingTypes.TestStack) => (await s.request("secrets", "LIST", "/transform/alphabet")).body.data.keys;
      expect([await alphabets(a), await alphabets(b), await alphabets(c)]).toEqual([["a-digits"], ["b-digits"], ["from-folder"]]);
      const previews = await Promise.all([a.preview(), b.preview(), c.preview()]);
      expect(previews.map((p) => p.changes)).toEqual([{ same: 3 }, { same: 3 }, { same: 1 }]);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
