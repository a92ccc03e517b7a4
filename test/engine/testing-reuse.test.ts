// pulumi-svc/testing keeps a provider host between the operations of a file's stacks
// (src/engine/reuse.ts), where the CLI starts one for each, and a program folder's transpiled
// TypeScript (src/engine/typescript.ts). Each test of a kept host runs a second stack on the host
// the first stack used (checked: the same process), and fails if anything the first left in that
// host reached the second: what its creates made, what its resources hold, the secrets it
// registered for redaction, its settings, a program's own dynamic provider.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import type * as emulatorTypes from "../../src/emulator";
import type * as hostTypes from "../../src/engine/host";
import type * as programTypes from "../../src/engine/program";
import type * as reuseTypes from "../../src/engine/reuse";
import { fromDist, root } from "../support/dist";
import { openStacks, svc, testStack, type testingTypes } from "../support/testing";

const { HostPool } = fromDist<typeof reuseTypes>("src/engine/reuse.js");
const { compiledFolder } = fromDist<typeof programTypes>("src/engine/program.js");
const { startEmulator } = fromDist<typeof emulatorTypes>("src/emulator/index.js");
const open = openStacks();

// Which host each operation got, in order.
const acquire = vi.spyOn(HostPool.prototype, "acquire");
const hostsOfOperations = async (): Promise<number[]> =>
  Promise.all(acquire.mock.results.map(async (r) => ((await r.value) as hostTypes.ProviderHost).pid));

let shared: emulatorTypes.Emulator;
beforeEach(async () => {
  acquire.mockClear();
  shared ??= await startEmulator();
  await fetch(`${shared.controlUrl}/reset`, { method: "POST" });
});
afterAll(async () => {
  acquire.mockRestore();
  await shared?.close();
});

/** A notification configuration of the shared emulator's workspace (optionally taking over `adoptId`). */
const hook = (name: string, extra: Record<string, unknown> = {}) => () => {
  new svc.runs.NotificationConfiguration(name, {
    workspaceId: shared.workspaceId, name: "deploys", destinationType: "generic", url: "https://hooks.example.com/deploys",
    triggers: ["run:completed"], ...extra,
  });
};

/** Whether a process runs (one that ended but is not reaped yet is a zombie: it does not). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function stacks(a: testingTypes.TestStackOptions, b: testingTypes.TestStackOptions): Promise<[testingTypes.TestStack, testingTypes.TestStack]> {
  const first = await testStack(a);
  const second = await testStack(b);
  open.push(first, second);
  return [first, second];
}

describe("stacks one after the other on one kept provider host", { timeout: 180_000 }, () => {
  it("each stack's requests go to its own server, with its own settings", async () => {
    const alphabet = (name: string) => () => { new svc.secrets.transform.Alphabet("digits", { name, alphabet: "0123456789" }); };
    const [a, b] = await stacks({ program: alphabet("from-a") }, { program: alphabet("from-b") });
    await a.up();
    await b.up();
    const [first, second] = await hostsOfOperations();
    expect(second).toBe(first);
    const names = async (s: testingTypes.TestStack) => (await s.request("secrets", "LIST", "/transform/alphabet")).body.data.keys;
    expect([await names(a), await names(b)]).toEqual([["from-a"], ["from-b"]]);
  });

  it("a create of the second stack refuses to duplicate what the first made: that create is not this deployment's", async () => {
    const [a, b] = await stacks({ program: hook("hook"), emulator: shared }, { program: hook("hook"), emulator: shared });
    await a.up();
    const twin = await b.up().catch((e: Error) => e);
    expect(new Set(await hostsOfOperations()).size).toBe(1);
    expect(twin).toBeInstanceOf(Error);
    expect((twin as Error).message).toMatch(/exists already \(nc-[^)]+\): creating another would duplicate it.*npx pulumi-svc-recover/);
    const listed = await b.request("run", "GET", `/workspaces/${shared.workspaceId}/notification-configurations`);
    expect(listed.body.data).toHaveLength(1);
  });

  it("the second stack takes over by adoptId an object the first took over: no resource of its own holds it", async () => {
    const made = await fetch(`${shared.runUrl}/workspaces/${shared.workspaceId}/notification-configurations`, {
      method: "POST",
      headers: { authorization: `Bearer ${shared.tokens.runAdmin}`, "content-type": "application/vnd.api+json" },
      body: JSON.stringify({ data: { type: "notification-configuration", attributes: { name: "made-by-hand", "destination-type": "generic", url: "https://hooks.example.com/x", enabled: false, triggers: [] } } }),
    });
    expect(made.status).toBe(201);
    const id = ((await made.json()) as { data: { id: string } }).data.id;
    const [a, b] = await stacks({ program: hook("first", { adoptId: id }), emulator: shared }, { program: hook("second", { adoptId: id }), emulator: shared });
    expect((await a.up()).changes).toEqual({ create: 1 });
    expect((await b.up()).changes).toEqual({ create: 1 });
    expect(new Set(await hostsOfOperations()).size).toBe(1);
  });

  it("a secret of the first stack is no secret of the second: the second's messages show its own plain values", async () => {
    const secret = "s3cret-of-stack-a";
    const [a, b] = await stacks(
      { program: hook("hook", { token: secret }), emulator: shared },
      { program: () => { new svc.secrets.transform.Alphabet("digits", { name: "b-digits", alphabet: "0123456789" }); }, config: { "svc:maxRetries": secret } },
    );
    await a.up();
    const refused = await b.up().catch((e: Error) => e);
    expect(new Set(await hostsOfOperations()).size).toBe(1);
    expect((refused as Error).message).toContain(`svc:maxRetries / SVC_MAX_RETRIES must be a non-negative integer, got "${secret}"`);
  });

  it("a kept host ends with the process that started it, however that process ends", async () => {
    // A test process that runs one up and is then killed, as a runner ends its workers: no exit handler runs.
    const script = `
      const dist = ${JSON.stringify(path.join(root, "dist/src"))};
      const { HostPool } = require(dist + "/engine/reuse.js");
      const release = HostPool.prototype.release;
      HostPool.prototype.release = async function (host, options) { await release.call(this, host, options); console.log("kept " + host.pid); };
      const { testStack } = require(dist + "/testing/index.js");
      const svc = require(dist + "/index.js");
      (async () => {
        const stack = await testStack({ program: () => { new svc.secrets.transform.Alphabet("digits", { name: "kept", alphabet: "0123456789" }); } });
        await stack.up();
        setInterval(() => undefined, 1000);
      })();`;
    const child = spawn(process.execPath, ["-e", script], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    const pid = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout!.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        const m = /kept (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.on("exit", (code) => reject(new Error(`the test process ended (${code}) before keeping a host: ${out}`)));
    });
    expect(running(pid)).toBe(true);
    child.kill("SIGKILL");
    // A deadline only against a hang: the host ends as soon as its stdin closes.
    for (let i = 0; i < 300 && running(pid); i++) await new Promise((r) => setTimeout(r, 100));
    const orphan = running(pid);
    if (orphan) process.kill(pid, "SIGKILL");
    expect(orphan).toBe(false);
  });

  it("a TypeScript program folder is transpiled once for the file's stacks, and again when its text changes", async () => {
    // Inside the package, so that the folder's require("pulumi-svc") finds it as an installed one would be.
    const folder = fs.mkdtempSync(path.join(root, "dist", "testing-reuse-"));
    const write = (name: string) => fs.writeFileSync(path.join(folder, "index.ts"), [
      'import * as svc from "pulumi-svc";',
      `const digits = new svc.secrets.transform.Alphabet("digits", { name: ${JSON.stringify(name)} as string, alphabet: "0123456789" });`,
      "export const alphabet = digits.name;",
      "",
    ].join("\n"));
    const kept = () => fs.readdirSync(compiledFolder()).filter((f) => f.endsWith(".js")).length;
    try {
      write("first");
      const before = kept();
      const [a, b] = await stacks({ dir: folder, cwd: root }, { dir: folder, cwd: root });
      expect((await a.up()).outputs.alphabet).toEqual({ value: "first", secret: false });
      expect((await b.up()).outputs.alphabet).toEqual({ value: "first", secret: false });
      expect(kept()).toBe(before + 1);
      write("second");
      expect((await b.up()).outputs.alphabet).toEqual({ value: "second", secret: false });
      expect(kept()).toBe(before + 2);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("a host that served a program's own dynamic provider is not kept: its module state would reach the next stack", async () => {
    // The provider counts its creates in a variable it keeps between calls, as any module may.
    let created = 0;
    const counter: pulumi.dynamic.ResourceProvider = {
      async create() {
        created += 1;
        return { id: `counter-${created}`, outs: { created } };
      },
    };
    class Counter extends pulumi.dynamic.Resource {
      declare readonly created: pulumi.Output<number>;
      constructor(name: string) {
        super(counter, name, { created: undefined });
      }
    }
    const program = () => ({ created: new Counter("counter").created });
    const [a, b] = await stacks({ program }, { program });
    await a.up();
    await b.up();
    const [first, second] = await hostsOfOperations();
    expect(second).not.toBe(first);
    expect([a.outputs().created, b.outputs().created]).toEqual([{ value: 1, secret: false }, { value: 1, secret: false }]);
  });
});
