// Protocol tests for ProviderHost: the real @pulumi/pulumi dynamic-provider host over gRPC.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PartialFailureError, ProviderHost } from "../../src/engine/host";
import { SECRET_SIG, SIG_KEY, UNKNOWN } from "../../src/engine/values";

const fixtures = path.join(__dirname, "fixtures");
const urn = (name: string): string => `urn:pulumi:test::proj::pulumi-nodejs:dynamic/fixture:StoreItem::${name}`;
const calls = (dir: string): string[] => fs.readFileSync(path.join(dir, "calls.log"), "utf8").trim().split("\n");

let dir: string;
let host: ProviderHost;
let __provider: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "engine-host-"));
  const { provider } = require(path.join(fixtures, "store.js"));
  __provider = (await pulumi.runtime.serializeFunction(() => provider)).text;
  host = await ProviderHost.start({ cwd: fixtures, env: { FIXTURE_DIR: "/nonexistent-until-configured" } });
  await host.configure({ "fixture:dir": dir, "fixture:greeting": "hello", "fixture:apiToken": "tok-123" });
});

afterAll(async () => {
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("ProviderHost", () => {
  it("starts the real host on 127.0.0.1 and configures the provider with args on first use", async () => {
    const res = await host.check(urn("alpha"), {}, { __provider, name: "alpha", value: "v1" });
    expect(res.failures).toEqual([]);
    // check fills a default and keeps __provider in the checked inputs.
    expect(res.inputs).toMatchObject({ name: "alpha", value: "v1", kind: "default", __provider });
    const seen = fs.readFileSync(path.join(dir, "configure.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(seen).toEqual([{ dir, greeting: "hello", hasToken: true }]);
  });

  it("returns check failures naming the property, and passes the unknown sentinel through", async () => {
    const bad = await host.check(urn("alpha"), {}, { __provider, name: "alpha", value: "bad" });
    expect(bad.failures).toEqual([{ property: "value", reason: "must not be bad" }]);
    const unknown = await host.check(urn("alpha"), {}, { __provider, name: "alpha", value: UNKNOWN });
    expect(unknown.failures).toEqual([]);
    expect(unknown.inputs.value).toBe(UNKNOWN);
  });

  it("reports diffs: no change, update, replace with and without deleteBeforeReplace", async () => {
    const olds = { __provider, name: "a", kind: "k1", value: "v1" };
    expect(await host.diff(urn("a"), "a", olds, { ...olds })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(await host.diff(urn("a"), "a", olds, { ...olds, value: "v2" })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(await host.diff(urn("a"), "a", olds, { ...olds, kind: "k2" })).toEqual({ changes: true, replaces: ["kind"], deleteBeforeReplace: true });
    expect(await host.diff(urn("a"), "a", olds, { ...olds, name: "b" })).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
  });

  it("creates, reads, updates and deletes; secret wrappers are stripped before sending", async () => {
    const password = { [SIG_KEY]: SECRET_SIG, value: "hunter2" };
    const created = await host.create(urn("crud"), { __provider, name: "crud", kind: "k", value: "v1", password });
    expect(created.id).toBe("crud");
    expect(created.outs).toMatchObject({ name: "crud", value: "v1", password: "hunter2", revision: 1, __provider });
    const read = await host.read(urn("crud"), "crud", created.outs);
    expect(read.id).toBe("crud");
    expect(read.props).toMatchObject({ value: "v1", __provider });
    const updated = await host.update(urn("crud"), "crud", created.outs, { __provider, name: "crud", kind: "k", value: "v2" });
    expect(updated.outs).toMatchObject({ value: "v2", revision: 2 });
    await host.delete(urn("crud"), "crud", updated.outs);
    const gone = await host.read(urn("crud"), "crud", updated.outs);
    expect(gone.id).toBe("");
    expect(calls(dir).filter((c) => c.endsWith(" crud"))).toEqual(["create crud", "read crud", "update crud", "delete crud", "read crud"]);
    expect(host.stderr()).not.toContain("hunter2");
  });

  it("throws a PartialFailureError carrying id and properties when create fails after creating", async () => {
    const err = await host.create(urn("half"), { __provider, name: "half", kind: "k", value: "v", failAfterCreate: true }).catch((e) => e);
    expect(err).toBeInstanceOf(PartialFailureError);
    expect(err.message).toContain("half did not become ready");
    expect(err.id).toBe("half");
    expect(err.properties).toMatchObject({ name: "half", value: "v", revision: 1 });
    expect(err.reasons).toEqual(["not ready"]);
  });

  it("throws a plain Error for an ordinary failure and the host logs it on stderr", async () => {
    await host.create(urn("half"), { __provider, name: "half", kind: "k", value: "v" }).then(
      () => expect.fail("expected a conflict"),
      (e: Error) => {
        expect(e).not.toBeInstanceOf(PartialFailureError);
        expect(e.message).toContain("conflict: half already exists");
      },
    );
    await expect(host.delete(urn("x"), "x", {})).rejects.toThrow();
    expect(host.stderr().length).toBeGreaterThan(0);
  });

  it("close() ends the host process", async () => {
    const other = await ProviderHost.start({ cwd: fixtures });
    const pid = other.pid;
    await other.close();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
