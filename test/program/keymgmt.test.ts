import { describe, expect, it } from "vitest";
import { useProgram } from "../support/program";

const ACCESS_KEY = "AKIAKEYMGMTEXAMPLE01";
const SECRET_KEY = "keymgmt-example-aws-secret-7d6c5b";

const { emu, run, ops, get, secretsApi, requests: logged, clearRequests, stateText } = useProgram({
  example: "keymgmt", project: "pulumi-svc-keymgmt",
  secretConfig: () => ({ "keymgmt:awsAccessKey": ACCESS_KEY, "keymgmt:awsSecretKey": SECRET_KEY }),
});

describe("the keymgmt example through the engine double", () => {
  it("previews three creates without a single request", async () => {
    await clearRequests();
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ aws: "create", signing: "create", "signing-in-aws": "create" });
    expect(await logged()).toEqual([]);
  });

  it("creates the provider and the key, then distributes the key", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    // The distribution waits for both (its inputs are their names); their order is free.
    expect(r.steps.map((s) => `${s.op} ${s.name}`).sort()).toEqual(["create aws", "create signing", "create signing-in-aws"]);
    expect(r.steps.at(-1)!.name).toBe("signing-in-aws");
    expect(r.outputs).toMatchObject({
      keyVersion: 1,
      providerKeyName: expect.stringMatching(/^release-signing-\d+$/),
      publicKey: expect.stringContaining("BEGIN PUBLIC KEY"),
      distributedKeys: ["release-signing"],
    });
    expect((await get("/keymgmt/kms/aws-eu")).body.data).toEqual({ provider: "awskms", key_collection: "eu-west-1" });
    expect((await get("/keymgmt/key/release-signing/kms?list=true")).body.data.keys).toEqual(["aws-eu"]);
    expect((await get("/keymgmt/kms/aws-eu/key/release-signing")).body.data.purpose.split(",").sort()).toEqual(["sign", "verify"]);
  });

  it("stores no credential or token in plaintext in state", async () => {
    const text = stateText();
    for (const secret of [ACCESS_KEY, SECRET_KEY, ...Object.values(emu.tokens)]) expect(text).not.toContain(secret);
    const disk = JSON.parse(text) as { resources: { name: string; outputs: Record<string, unknown> }[] };
    expect(disk.resources.find((r) => r.name === "aws")!.outputs.credentials).toEqual({ secure: expect.any(String) });
  });

  it("has no perpetual diff: a second up changes nothing and writes nothing", async () => {
    await clearRequests();
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ aws: "same", signing: "same", "signing-in-aws": "same" });
    expect((await logged()).filter((q) => q.method !== "GET" && q.method !== "LIST")).toEqual([]);
  });

  it("step2 rotates the key in place (rotationTrigger) and leaves the rest alone", async () => {
    await clearRequests();
    const r = await run("up", 2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ aws: "same", signing: "update", "signing-in-aws": "same" });
    expect(r.steps.find((s) => s.name === "signing")!.changedKeys!.sort()).toEqual(["minEnabledVersion", "rotationTrigger"]);
    expect(r.outputs).toMatchObject({ keyVersion: 2, distributedKeys: ["release-signing"] });
    expect((await get("/keymgmt/key/release-signing")).body.data).toMatchObject({ latest_version: 2, min_enabled_version: 2 });
    const writes = (await logged()).filter((q) => q.method === "POST").map((q) => q.path);
    expect(writes).toEqual(["/v1/keymgmt/key/release-signing/rotate", "/v1/keymgmt/key/release-signing"]);

    const again = await run("up", 2);
    expect(ops(again)).toEqual({ aws: "same", signing: "same", "signing-in-aws": "same" });
    expect((await get("/keymgmt/key/release-signing")).body.data.latest_version).toBe(2);
  });

  it("refresh drops a distribution removed out of band, and the next up distributes again", async () => {
    await secretsApi("DELETE", "/keymgmt/kms/aws-eu/key/release-signing");
    const refreshed = await run("refresh", 2);
    expect(refreshed.error).toBeUndefined();
    expect(refreshed.steps.find((s) => s.name === "signing-in-aws")?.op).toBe("read-gone");
    const r = await run("up", 2);
    expect(ops(r)["signing-in-aws"]).toBe("create");
    expect((await get("/keymgmt/kms/aws-eu/key/release-signing")).status).toBe(200);
  });

  it("destroy removes the distribution before the key and the provider", async () => {
    const r = await run("destroy", 2);
    expect(r.error).toBeUndefined();
    const order = r.steps.map((s) => `${s.op} ${s.name}`);
    expect(order[0]).toBe("delete signing-in-aws");
    expect(order.slice(1).sort()).toEqual(["delete aws", "delete signing"]);
    expect((await get("/keymgmt/key/release-signing")).status).toBe(404);
    expect((await get("/keymgmt/kms/aws-eu")).status).toBe(404);
  });
});
