// Functions as Pulumi lookups, under pulumi.runtime.setMocks in preview (dry run): options shaped
// like InvokeOptions / InvokeOutputOptions, unknown results while inputs or dependencies do not
// exist yet, errors that name the function, and missing settings named during preview.
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromDist } from "../support/dist";

// From the build, as users load it: the resource classes need the compiled runtime entry beside them.
const svc = fromDist<typeof import("../../src")>("src/index.js");

const saved = { ...process.env };

beforeAll(async () => {
  for (const k of Object.keys(process.env)) if (k.startsWith("SVC_")) delete process.env[k];
  // Nothing listens on port 9: a request that is made fails with a transport error.
  process.env.SVC_SECRETS_URL = "http://127.0.0.1:9/v1";
  process.env.SVC_SECRETS_TOKEN = "invoke-options-token";
  process.env.SVC_MAX_RETRIES = "0";
  await pulumi.runtime.setMocks({
    // In a preview a resource that is to be created has no id yet.
    newResource: (args) => ({ id: undefined as unknown as string, state: args.inputs }),
    call: () => ({}),
  }, "project", "stack", true);
});

afterAll(() => {
  process.env = saved;
});

/** Whether an Output is known (internal SDK API, present throughout 3.x). */
function known(o: pulumi.Output<unknown>): Promise<boolean> {
  return (o as unknown as { isKnown: Promise<boolean> }).isKnown;
}

describe("Output forms in a first preview", () => {
  it("are unknown, without a request, while an input comes from a resource not created yet", async () => {
    const key = new svc.secrets.keymgmt.Key("k", { name: "app-signing" });
    const info = svc.secrets.keymgmt.getKeyOutput({ name: key.name });
    expect(await known(info)).toBe(false);
  });

  it("are unknown while a dependsOn resource is not created yet", async () => {
    const alphabet = new svc.secrets.transform.Alphabet("a", { name: "digits", alphabet: "0123456789" });
    expect(await known(svc.secrets.keymgmt.listKeysOutput({}, { dependsOn: [alphabet] }))).toBe(false);
    expect(await known(svc.secrets.keymgmt.listKeysOutput({}, { dependsOn: pulumi.output([alphabet]) }))).toBe(false);
  });
});

describe("transform Output forms take options like every other function", () => {
  // Each form as a user writes it: arguments, then `{ dependsOn }` (this file is type-checked too).
  const t = () => svc.secrets.transform;
  const forms: [string, (name: pulumi.Input<string>, opts: { dependsOn: pulumi.Resource[] }) => pulumi.Output<unknown>][] = [
    ["getRoleOutput", (name, opts) => t().getRoleOutput({ name }, opts)],
    ["getTransformationOutput", (name, opts) => t().getTransformationOutput({ name }, opts)],
    ["getStoreOutput", (name, opts) => t().getStoreOutput({ name }, opts)],
    ["getTokenizationKeyOutput", (name, opts) => t().getTokenizationKeyOutput({ name }, opts)],
    ["rotateTokenizationKeyOutput", (name, opts) => t().rotateTokenizationKeyOutput({ name }, opts)],
    ["trimTokenizationKeyOutput", (name, opts) => t().trimTokenizationKeyOutput({ name, minAvailableVersion: 2 }, opts)],
    ["encodeOutput", (role, opts) => t().encodeOutput({ role, value: "4111-1111-1111-1111" }, opts)],
    ["decodeOutput", (role, opts) => t().decodeOutput({ role, value: "4111-1111-1111-1111" }, opts)],
    ["validateOutput", (role, opts) => t().validateOutput({ role, value: "token" }, opts)],
    ["tokenizedOutput", (role, opts) => t().tokenizedOutput({ role, value: "plain" }, opts)],
    ["metadataOutput", (role, opts) => t().metadataOutput({ role, value: "token" }, opts)],
  ];

  it.each(forms)("%s is unknown, without a request, while a dependsOn resource or an input is not created yet", async (_name, form) => {
    const role = new svc.secrets.transform.Role(`r-${_name}`, { name: "payments" });
    // A request would fail (nothing listens on port 9) and reject these Outputs instead.
    expect(await known(form("payments", { dependsOn: [role] }))).toBe(false);
    expect(await known(form(role.name, { dependsOn: [] }))).toBe(false);
  });
});

describe("Promise forms", () => {
  it("name the function in validation and request errors", async () => {
    await expect(svc.secrets.keymgmt.getKey({ name: "" })).rejects.toThrow(/^getKey: /);
    await expect(svc.secrets.keymgmt.getKey({ name: "app" }, { connection: svc.secrets.connection({ url: "http://127.0.0.1:9/v1" }) }))
      .rejects.toThrow(/^getKey: /);
  });

  it("a side-effecting function makes no request in preview but still names a missing setting", async () => {
    expect(await svc.secrets.keymgmt.rotateKey({ name: "app" })).toBeUndefined();
    delete process.env.SVC_SECRETS_TOKEN;
    try {
      await expect(svc.secrets.keymgmt.rotateKey({ name: "app" })).rejects.toThrow(/^rotateKey: .*svc:secretsToken.*SVC_SECRETS_TOKEN/);
      // A connection that carries the token is enough.
      expect(await svc.secrets.keymgmt.rotateKey({ name: "app" }, { connection: { token: "from-connection" } })).toBeUndefined();
    } finally {
      process.env.SVC_SECRETS_TOKEN = "invoke-options-token";
    }
  });
});
