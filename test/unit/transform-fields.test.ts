// The transform engine's objects and functions on field records (issue 23 item 1): a misspelt
// property is refused at check naming the nearest known one, and the values the records declare
// secret (store passwords, the value of every encode/decode/validate/tokenized/metadata call and
// batch item, restore's snapshot values) are registered for redaction (issue 17 item 8), so a
// server that echoes the request body in its error cannot put them in a message.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { check } from "../../src/core/provider";
import { call } from "../../src/runtime";
import type { ResourceDefinition } from "../../src/core/definition";
import { kindDefinition } from "../../src/kinds";
import * as transform from "../../src/secrets/transform";
import { rejectionOf } from "../support/errors";

const STORE = {
  name: "tokens", driver: "postgres", connectionString: "postgresql://{{username}}:{{password}}@db:5432/tokens",
  username: "tokenizer", password: "Hq3Zr8Vt2Lm6Pw9K",
};

/** Valid inputs of each kind, and a misspelling with the property it should suggest. */
const KINDS: [kind: string, valid: Record<string, unknown>, typo: string, meant: string][] = [
  ["secrets:TransformTemplate", { name: "t", pattern: "(\\d{4})" }, "patern", "pattern"],
  ["secrets:TransformAlphabet", { name: "a", alphabet: "0123456789" }, "alphabat", "alphabet"],
  ["secrets:TransformRole", { name: "r" }, "transformation", "transformations"],
  ["secrets:TransformFpeTransformation", { name: "f", template: "builtin/creditcardnumber" }, "tweakSorce", "tweakSource"],
  ["secrets:TransformMaskingTransformation", { name: "m", template: "builtin/creditcardnumber" }, "maskingCharacters", "maskingCharacter"],
  ["secrets:TransformTokenizationTransformation", { name: "t" }, "maxTTL", "maxTtl"],
  ["secrets:TransformTransformation", { name: "g", type: "fpe", template: "builtin/creditcardnumber" }, "allowedRole", "allowedRoles"],
  ["secrets:TransformStore", STORE, "pasword", "password"],
  ["secrets:TransformStoreSchema", { store: "tokens", username: "admin", password: "Ad7Qz2Wx9Lp4Ty" }, "transformationTyp", "transformationType"],
  ["secrets:TransformTokenizationKeyConfig", { transformation: "tok" }, "minDecryptVersion", "minDecryptionVersion"],
];

describe("a misspelt property is refused at check, naming the nearest known one", () => {
  const defs: Record<string, ResourceDefinition> = {};
  beforeAll(async () => {
    for (const [kind] of KINDS) defs[kind] = (await kindDefinition(kind))!;
  });

  it.each(KINDS)("%s", (kind, valid, typo, meant) => {
    expect(check(defs[kind]!, valid).failures).toEqual([]);
    expect(check(defs[kind]!, { ...valid, [typo]: "x" }).failures).toEqual([{ property: typo, reason: `unknown property; did you mean ${meant}?` }]);
  });

  it("in function arguments and batch items too, before any request", async () => {
    const single = await rejectionOf(transform.encode({ role: "pay", valeu: "4111111111111111" } as never));
    expect(single.message).toContain("valeu: unknown property; did you mean value?");
    const item = await rejectionOf(transform.decode({ role: "pay", batchInput: [{ value: "4111111111111111", transformaton: "card" }] } as never));
    expect(item.message).toContain("batchInput[0].transformaton: unknown property; did you mean transformation?");
    const ttl = await rejectionOf(transform.decode({ role: "pay", value: "4111111111111111", ttl: "1h" }));
    expect(ttl.message).toContain("ttl: is for encode only");
  });
});

describe("declared secrets never appear in a server's echo of the request", () => {
  let server: Server;
  const saved: Record<string, string | undefined> = {};
  const ENV = ["SVC_SECRETS_URL", "SVC_SECRETS_TOKEN", "SVC_MAX_RETRIES"];

  beforeAll(async () => {
    // Every read finds nothing (so creates go on to write); every write is refused with its own body quoted.
    server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => {
        const [status, answer] = req.method === "GET" ? [404, { errors: [] }] : [400, { errors: [`refused ${req.method} ${req.url}: ${body}`] }];
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    for (const k of ENV) saved[k] = process.env[k];
    Object.assign(process.env, {
      SVC_SECRETS_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, SVC_SECRETS_TOKEN: "echo-test-token", SVC_MAX_RETRIES: "0",
    });
  });

  afterAll(async () => {
    for (const k of ENV) if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k];
    await new Promise((resolve) => server.close(resolve));
  });

  /** The error's message shows the echo (names and all) with every secret masked. */
  const expectMasked = (message: string, secrets: string[], shown: string[]) => {
    expect(message).toContain("refused POST");
    for (const s of shown) expect(message).toContain(s);
    for (const s of secrets) expect(message).not.toContain(s);
    expect(message).toContain("[REDACTED]");
  };

  const OPS = ["encode", "decode", "validate", "tokenized", "metadata"] as const;

  it.each(OPS)("%s: the single value", async (op) => {
    // Random-looking values: redaction masks any 6-character run of a secret, so a wordy one would mask words.
    const value = `Zq${OPS.indexOf(op)}vLp2Wm9Rk4Tz`;
    const err = await rejectionOf(transform[op]({ role: "pay", transformation: "card-numbers", value }));
    expectMasked(err.message, [value], ["card-numbers"]);
  });

  it.each(OPS)("%s: every batch item's value, while its other fields stay readable", async (op) => {
    const values = [`Bx${OPS.indexOf(op)}Qm7Zk2Vt9Lp`, `Cy${OPS.indexOf(op)}Wn4Hr8Jd1Fs`];
    const err = await rejectionOf(transform[op]({ role: "pay", batchInput: values.map((value) => ({ value, transformation: "card-numbers" })) }));
    expectMasked(err.message, values, ["card-numbers", "batch_input"]);
  });

  it("restore: snapshot values from any iterable, registered as they are sent", async () => {
    async function* snapshot() {
      yield "c25hcHNob3QtdmFsdWUtb25l";
      yield "c25hcHNob3QtdmFsdWUtdHdv";
    }
    const err = await rejectionOf(transform.restoreTokenization({ transformation: "tok", values: snapshot() }));
    expectMasked(err.message, ["c25hcHNob3QtdmFsdWUtb25l", "c25hcHNob3QtdmFsdWUtdHdv"], ["restore/tok"]);
  });

  const created = async (kind: string, inputs: Record<string, unknown>) => {
    const checked = (await call(kind, "check", [{}, inputs])) as { inputs: Record<string, unknown>; failures: unknown[] };
    expect(checked.failures).toEqual([]);
    return rejectionOf(call(kind, "create", [checked.inputs]));
  };

  it("Store: the password", async () => {
    const err = await created("secrets:TransformStore", STORE);
    expectMasked(err.message, [STORE.password], ["tokenizer", "connection_string"]);
  });

  it("StoreSchema: the password", async () => {
    const password = "Sm4Tq8Zr1Xw7Vk3P";
    const err = await created("secrets:TransformStoreSchema", { store: "tokens", username: "dbadmin", password });
    expectMasked(err.message, [password], ["dbadmin", "stores/tokens/schema"]);
  });
});
