import { describe, expect, test } from "vitest";
import { secretsApi } from "./helpers";
import { controlResponse, useEmulator } from "../support/emulator";

const { emu } = useEmulator();
const { post, get, list, del } = secretsApi(emu, "transform/");

const TWEAK = Buffer.from("abcdefg").toString("base64");

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function ok(p: Promise<{ status: number; json: any }>, status = 204) {
  const res = await p;
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res;
}

async function cards(tweakSource = "supplied") {
  await ok(post("transformations/fpe/card", { template: "builtin/creditcardnumber", tweak_source: tweakSource, allowed_roles: ["payments"] }));
  await ok(post("role/payments", { transformations: ["card"] }));
}

describe("built-ins", () => {
  test("templates and the internal store are readable, reserved and not listed", async () => {
    expect((await get("template/builtin/creditcardnumber")).json.data).toEqual({ type: "regex", alphabet: "builtin/numeric", pattern: expect.stringContaining("(\\d{4})") });
    expect((await get("template/builtin/socialsecuritynumber")).json.data.alphabet).toBe("builtin/numeric");
    expect((await get("stores/builtin/internal")).json.data.supported_transformations).toEqual(["tokenization"]);
    for (const path of ["template/builtin/x", "stores/builtin/internal", "alphabet/builtin/numeric"]) {
      const res = await post(path, {});
      expect(res.status).toBe(400);
      expect(res.json.errors[0]).toContain("reserved");
    }
    expect((await list("template")).status).toBe(404);
  });
});

describe("roles and transformations", () => {
  test("typed endpoints write, the generic GET reads with templates as a list", async () => {
    await ok(post("transformations/fpe/f", { template: "builtin/socialsecuritynumber", tweak_source: "internal", allowed_roles: ["r"] }));
    await ok(post("transformations/masking/m", { template: "builtin/creditcardnumber", masking_character: "#x" }));
    await ok(post("transformations/tokenization/t", { max_ttl: "24h", mapping_mode: "exportable" }));
    expect((await get("transformation/f")).json.data).toEqual({ type: "fpe", templates: ["builtin/socialsecuritynumber"], tweak_source: "internal", allowed_roles: ["r"] });
    expect((await get("transformation/m")).json.data).toMatchObject({ type: "masking", masking_character: "#", allowed_roles: [] });
    expect((await get("transformation/t")).json.data).toMatchObject({ type: "tokenization", templates: [], max_ttl: 86400, mapping_mode: "exportable", stores: ["builtin/internal"] });
    expect((await list("transformation")).json.data.keys).toEqual(["f", "m", "t"]);
  });

  test("the deprecated generic endpoint needs type and template", async () => {
    expect((await post("transformation/g", { template: "builtin/creditcardnumber" })).json.errors).toEqual(["missing type"]);
    expect((await post("transformation/g", { type: "fpe" })).json.errors).toEqual(["missing template"]);
    await ok(post("transformation/g", { type: "masking", template: "builtin/creditcardnumber" }));
    expect((await get("transformation/g")).json.data).toMatchObject({ type: "masking", masking_character: "*" });
  });

  test("type, mapping mode and stores are immutable; other fields update in place", async () => {
    await ok(post("transformations/tokenization/t", {}));
    expect((await post("transformations/fpe/t", { template: "builtin/creditcardnumber" })).json.errors[0]).toContain("type is immutable");
    expect((await post("transformations/tokenization/t", { mapping_mode: "exportable" })).json.errors[0]).toContain("mapping_mode cannot change");
    await ok(post("transformations/tokenization/t", { max_ttl: 60, allowed_roles: "a,b" }));
    expect((await get("transformation/t")).json.data).toMatchObject({ max_ttl: 60, allowed_roles: ["a", "b"] });
  });

  test("invalid bodies are refused with every problem at once", async () => {
    const res = await post("transformations/tokenization/t", { mapping_mode: "nope", stores: ["missing"] });
    expect(res.status).toBe(400);
    expect(res.json.errors.join()).toContain("mapping_mode");
    expect((await post("transformations/tokenization/t2", { stores: ["missing"], max_ttl: "soon" })).status).toBe(400);
    expect((await post("transformations/fpe/f", { template: "missing" })).json.errors).toEqual(['template "missing" does not exist']);
    await ok(post("template/noalpha", { type: "regex", pattern: "(\\d+)" }));
    expect((await post("transformations/fpe/f", { template: "noalpha" })).json.errors[0]).toContain("names no alphabet");
    expect((await post("transformations/fpe/f", { template: "builtin/creditcardnumber", tweak_source: "x" })).json.errors[0]).toContain("tweak_source");
    expect((await post("role/r", { transformations: ["nope"] })).json.errors).toEqual(['transformation "nope" does not exist']);
  });

  test("role LIST takes a filter glob; names such as __proto__ and constructor are ordinary", async () => {
    await ok(post("transformations/masking/m", { template: "builtin/creditcardnumber" }));
    for (const name of ["payments-eu", "payments-us", "audit", "__proto__", "constructor"]) await ok(post(`role/${name}`, { transformations: ["m"] }));
    expect((await list("role")).json.data.keys).toEqual(["__proto__", "audit", "constructor", "payments-eu", "payments-us"]);
    expect((await get("role?list=true&filter=payments-*")).json.data.keys).toEqual(["payments-eu", "payments-us"]);
    expect((await get("role/constructor")).json.data).toEqual({ transformations: ["m"] });
    expect((await get("role/toString")).status).toBe(404);
    expect((await get("transformation/constructor")).status).toBe(404);
  });

  test("delete guards name the user and the fix", async () => {
    await ok(post("alphabet/hex", { alphabet: "0123456789abcdef" }));
    await ok(post("template/h", { type: "regex", pattern: "([0-9a-f]{8})", alphabet: "hex" }));
    await ok(post("transformations/fpe/f", { template: "h", allowed_roles: ["r"] }));
    await ok(post("role/r", { transformations: ["f"] }));
    expect((await del("alphabet/hex")).json.errors).toEqual([expect.stringContaining('used by template "h"')]);
    expect((await del("template/h")).json.errors).toEqual([expect.stringContaining('used by transformation "f"')]);
    expect((await del("transformation/f")).json.errors).toEqual([expect.stringContaining('used by role "r"')]);
    await ok(del("role/r"));
    await ok(del("transformation/f"));
    await ok(del("template/h"));
    await ok(del("alphabet/hex"));
  });
});

describe("encode and decode", () => {
  test("fpe with a supplied tweak keeps the format, the separators and decodes back", async () => {
    await cards();
    const enc = await ok(post("encode/payments", { value: "4111-1111-1111-1111", tweak: TWEAK }), 200);
    const encoded = enc.json.data.encoded_value as string;
    expect(encoded).toMatch(/^\d{4}-\d{4}-\d{4}-\d{4}$/);
    expect(encoded).not.toBe("4111-1111-1111-1111");
    expect((await post("encode/payments", { value: "4111-1111-1111-1111", tweak: TWEAK })).json.data.encoded_value).toBe(encoded);
    expect((await post("decode/payments", { value: encoded, tweak: TWEAK })).json.data).toEqual({ decoded_value: "4111-1111-1111-1111" });
    expect((await post("encode/payments", { value: "4111-1111-1111-1111" })).json.errors[0]).toContain("missing tweak");
    expect((await post("encode/payments", { value: "4111-1111-1111-1111", tweak: Buffer.from("short").toString("base64") })).json.errors[0]).toContain("7 bytes");
    expect((await post("encode/payments", { value: "not a card", tweak: TWEAK })).json.errors[0]).toContain("does not match");
  });

  test("generated tweaks come back from encode as tweak and are needed to decode", async () => {
    await cards("generated");
    const enc = (await ok(post("encode/payments", { value: "4111111111111111" }), 200)).json.data;
    expect(Buffer.from(enc.tweak, "base64")).toHaveLength(7);
    expect((await post("decode/payments", { value: enc.encoded_value })).status).toBe(400);
    expect((await post("decode/payments", { value: enc.encoded_value, tweak: enc.tweak })).json.data.decoded_value).toBe("4111111111111111");
  });

  test("internal tweaks are never exposed", async () => {
    await cards("internal");
    const enc = (await ok(post("encode/payments", { value: "4111111111111111" }), 200)).json.data;
    expect(Object.keys(enc)).toEqual(["encoded_value"]);
    expect((await post("decode/payments", { value: enc.encoded_value })).json.data.decoded_value).toBe("4111111111111111");
  });

  test("a value too short for FF3-1 is a clear 400", async () => {
    await ok(post("template/short", { type: "regex", pattern: "(\\d+)", alphabet: "builtin/numeric" }));
    await ok(post("transformations/fpe/s", { template: "short", tweak_source: "internal", allowed_roles: ["r"] }));
    await ok(post("role/r", { transformations: ["s"] }));
    const res = await post("encode/r", { value: "12345" });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain("at least 6");
  });

  test("role checks: allowed_roles, the role's transformations, omitted transformation only with one", async () => {
    await cards("internal");
    await ok(post("role/other", { transformations: ["card"] }));
    expect((await post("encode/other", { value: "4111111111111111" })).json.errors[0]).toContain("allowed_roles");
    await ok(post("transformations/masking/m", { template: "builtin/creditcardnumber", allowed_roles: ["*"] }));
    await ok(post("role/payments", { transformations: ["card", "m"] }));
    expect((await post("encode/payments", { value: "4111111111111111" })).json.errors[0]).toContain("transformation is required");
    expect((await post("encode/payments", { value: "4111-1111-1111-1111", transformation: "m" })).json.data.encoded_value).toBe("****-****-****-****");
    expect((await post("decode/payments", { value: "****", transformation: "m" })).json.errors[0]).toContain("masking cannot be decoded");
    expect((await post("encode/nobody", { value: "1" })).json.errors[0]).toContain('role "nobody" does not exist');
    expect((await post("validate/payments", { value: "x", transformation: "card" })).json.errors[0]).toContain("tokenization transformations only");
  });

  test("batch_input keeps input order and fails item by item", async () => {
    await cards();
    const res = await ok(post("encode/payments", { value: "ignored", batch_input: [
      { value: "4111111111111111", tweak: TWEAK }, { value: "nope", tweak: TWEAK }, { value: "5500000000000004", tweak: TWEAK },
    ] }), 200);
    const results = res.json.data.batch_results;
    expect(results).toHaveLength(3);
    expect(results[1].error).toContain("does not match");
    const dec = await ok(post("decode/payments", { batch_input: [{ value: results[2].encoded_value, tweak: TWEAK }, { value: results[0].encoded_value, tweak: TWEAK }] }), 200);
    expect(dec.json.data.batch_results).toEqual([{ encoded_value: "5500000000000004" }, { encoded_value: "4111111111111111" }]);
  });
});

describe("tokenization", () => {
  async function tokens(body: Record<string, unknown> = {}) {
    await ok(post("transformations/tokenization/tok", { allowed_roles: ["app"], ...body }));
    await ok(post("role/app", { transformations: ["tok"] }));
  }

  test("random tokens, decode, validate, tokenized, metadata", async () => {
    await tokens();
    const a = (await ok(post("encode/app", { value: "123-45-6789", metadata: "owner=alice,team=eu" }), 200)).json.data.encoded_value;
    const b = (await post("encode/app", { value: "123-45-6789" })).json.data.encoded_value;
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[1-9A-HJ-NP-Za-km-z]{40,}$/);
    expect((await post("decode/app", { value: a })).json.data).toEqual({ decoded_value: "123-45-6789" });
    expect((await post("validate/app", { value: a })).json.data).toEqual({ valid: true });
    expect((await post("validate/app", { value: "nope" })).json.data).toEqual({ valid: false });
    expect((await post("tokenized/app", { value: "123-45-6789" })).json.data).toEqual({ tokenized: true });
    expect((await post("tokenized/app", { value: "other" })).json.data).toEqual({ tokenized: false });
    expect((await post("metadata/app", { value: a })).json.data).toEqual({ metadata: "owner=alice,team=eu", expiration_time: null });
    expect((await post("decode/app", { value: "nope" })).json.errors[0]).toContain("invalid token");
    const batch = (await post("validate/app", { batch_input: [{ value: a }, { value: "x" }] })).json.data.batch_results;
    expect(batch).toEqual([{ valid: true }, { valid: false }]);
  });

  test("ttl and max_ttl expire tokens", async () => {
    await tokens({ max_ttl: "1h" });
    const t = (await post("encode/app", { value: "v", ttl: "2h" })).json.data.encoded_value;
    const meta = (await post("metadata/app", { value: t })).json.data;
    // Capped at max_ttl (the 2h asked for would be later).
    expect(Date.parse(meta.expiration_time) - Date.now()).toBeLessThanOrEqual(3_600_000);
    expect((await post("validate/app", { value: t })).json.data.valid, "valid within max_ttl").toBe(true);
    // Past max_ttl on the emulator's clock, which token lifetimes are on.
    expect((await controlResponse(emu, "POST", "/clock/advance", { ms: 3_600_000 })).status).toBe(200);
    expect((await post("validate/app", { value: t })).json.data.valid).toBe(false);
    expect((await post("tokenized/app", { value: "v" })).json.data.tokenized).toBe(false);
    expect((await post("decode/app", { value: t })).json.errors[0]).toContain("expired");
  });

  test("key versions: rotate, min_decryption_version, trim and their bounds", async () => {
    await tokens();
    const v1 = (await post("encode/app", { value: "one" })).json.data.encoded_value;
    await ok(post("tokenization/keys/tok/rotate"));
    const v2 = (await post("encode/app", { value: "two" })).json.data.encoded_value;
    expect((await get("tokenization/keys/tok")).json.data).toEqual({ latest_version: 2, min_available_version: 0, min_decryption_version: 1, name: "tok" });
    expect((await list("tokenization/keys/")).json.data.keys).toEqual(["tok"]);
    expect((await post("tokenization/keys/tok/config", { min_decryption_version: 3 })).json.errors[0]).toContain("between 1");
    expect((await post("tokenization/keys/tok/trim", { min_available_version: 2 })).json.errors[0]).toContain("above min_decryption_version");
    await ok(post("tokenization/keys/tok/config", [{ min_decryption_version: 2 }]));
    expect((await post("decode/app", { value: v1 })).json.errors[0]).toContain("below min_decryption_version");
    expect((await post("decode/app", { value: v2 })).json.data.decoded_value).toBe("two");
    expect((await post("tokenization/keys/tok/trim", {})).json.errors).toEqual(["missing min_available_version"]);
    await ok(post("tokenization/keys/tok/trim", { min_available_version: 2 }));
    expect((await get("tokenization/keys/tok")).json.data.min_available_version).toBe(2);
    expect((await post("tokenization/keys/tok/config", { min_decryption_version: 1 })).status).toBe(400);
    expect((await get("tokenization/keys/nope")).status).toBe(404);
  });

  test("snapshot pages hold the values present at the start; restore is idempotent; modes do not mix", async () => {
    await tokens({ mapping_mode: "exportable" });
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await post("encode/app", { value: `v${i}` })).json.data.encoded_value);
    const first = (await ok(post("transformations/tokenization/snapshot/tok", { limit: 2 }), 200)).json.data;
    expect(first.values).toHaveLength(2);
    await post("encode/app", { value: "late" });
    const values = [...first.values];
    let cont = first.continuation as string | undefined;
    while (cont) {
      const page = (await post("transformations/tokenization/snapshot/tok", { limit: 2, continuation: cont })).json.data;
      values.push(...page.values);
      cont = page.continuation;
    }
    expect(values).toHaveLength(5);
    expect((await post("transformations/tokenization/snapshot/tok", { continuation: "forged.x" })).status).toBe(400);
    // Into another transformation of the other mapping mode: refused for the mode first.
    await ok(post("transformations/tokenization/plain", {}));
    expect((await post("transformations/tokenization/restore/plain", { values })).json.errors[0]).toContain("exportable-mode store");
    await ok(post("transformations/tokenization/restore/tok", { values: [...values, values[0]] }));
    const exported = (await ok(post("transformations/tokenization/export-decoded/tok", { limit: 100 }), 200)).json.data;
    expect(exported.continuation).toBeUndefined();
    expect(exported.values).toHaveLength(6);
    expect(exported.values.map((v: { plaintext: string }) => Buffer.from(v.plaintext, "base64").toString()).sort()).toEqual(["late", "v0", "v1", "v2", "v3", "v4"]);
    expect(exported.values.map((v: { token: string }) => v.token)).toEqual(expect.arrayContaining(made));
    expect((await post("transformations/tokenization/export-decoded/plain", {})).json.errors[0]).toContain("exportable");
  });

  test("restore refuses values sealed with other keys (400, nothing written) instead of answering 204 with undecodable tokens", async () => {
    await tokens();
    const token = (await post("encode/app", { value: "kept" })).json.data.encoded_value;
    const values = (await ok(post("transformations/tokenization/snapshot/tok", {}), 200)).json.data.values;
    // Another transformation has its own keys.
    await ok(post("transformations/tokenization/other", {}));
    const other = await post("transformations/tokenization/restore/other", { values });
    expect(other.status).toBe(400);
    expect(other.json.errors).toEqual([expect.stringContaining("values[0] was sealed with keys this transformation does not hold")]);
    // So does one deleted and created again under the same name: its old tokens are gone with its keys.
    await ok(del("role/app"));
    await ok(del("transformation/tok"));
    await tokens();
    const again = await post("transformations/tokenization/restore/tok", { values });
    expect(again.status).toBe(400);
    expect(again.json.errors[0]).toContain("restore it into the transformation it was taken from");
    expect((await post("transformations/tokenization/snapshot/tok", {})).json.data.values).toEqual([]);
    expect((await post("decode/app", { value: token })).status).toBe(400);
  });

  test("restore takes back values of its own keys, even of a version trimmed since (they stay undecodable, as trim says)", async () => {
    await tokens();
    const old = (await post("encode/app", { value: "old" })).json.data.encoded_value;
    const values = (await post("transformations/tokenization/snapshot/tok", {})).json.data.values;
    await ok(post("tokenization/keys/tok/rotate"));
    await ok(post("tokenization/keys/tok/config", { min_decryption_version: 2 }));
    await ok(post("tokenization/keys/tok/trim", { min_available_version: 2 }));
    await ok(post("transformations/tokenization/restore/tok", { values }));
    expect((await post("decode/app", { value: old })).json.errors[0]).toContain("below min_decryption_version");
  });
});

describe("stores", () => {
  test("mysql stores are validated and kept; reads omit the credentials; delete guard", async () => {
    const body = { type: "sql", driver: "mysql", connection_string: "{{username}}:{{password}}@tcp(127.0.0.1:3306)/t?parseTime=true", username: "u", password: "p" };
    await ok(post("stores/my", body));
    expect((await get("stores/my")).json.data).toEqual({
      type: "sql", driver: "mysql", connection_string: body.connection_string, supported_transformations: ["tokenization"], schema: "public",
      max_open_connections: 4, max_idle_connections: 4, max_connection_lifetime: 0,
    });
    await ok(post("stores/my/schema", { username: "admin", password: "pw" }));
    await ok(post("transformations/tokenization/t", { stores: ["my"], allowed_roles: ["r"] }));
    await ok(post("role/r", { transformations: ["t"] }));
    const token = (await post("encode/r", { value: "kept" })).json.data.encoded_value;
    expect((await post("decode/r", { value: token })).json.data.decoded_value).toBe("kept");
    expect((await del("stores/my")).json.errors[0]).toContain('used by tokenization transformation "t"');
  });

  test("invalid stores list every problem", async () => {
    const res = await post("stores/bad", { type: "nosql", driver: "oracle", connection_string: "x{{user}}", max_open_connections: 0 });
    expect(res.status).toBe(400);
    const text = res.json.errors.join("\n");
    for (const word of ["type", "driver", "{{user}}", "username", "password", "max_open_connections"]) expect(text).toContain(word);
    const mysql = await post("stores/bad", { type: "sql", driver: "mysql", connection_string: "{{username}}:{{password}}@tcp(h)/d", username: "u", password: "p" });
    expect(mysql.json.errors[0]).toContain("parseTime=true");
    expect((await post("stores/nope/schema", { username: "a", password: "b" })).status).toBe(404);
  });
});

describe("more endpoints", () => {
  test("stores LIST and DELETE; the generic endpoint makes default-mode tokenization on the internal store", async () => {
    const body = { type: "sql", driver: "mysql", connection_string: "{{username}}:{{password}}@tcp(h)/d?parseTime=true", username: "u", password: "p" };
    await ok(post("stores/b", body));
    await ok(post("stores/a", body));
    expect((await list("stores")).json.data.keys).toEqual(["a", "b"]);
    await ok(del("stores/a"));
    expect((await list("stores")).json.data.keys).toEqual(["b"]);
    await ok(post("transformation/legacy", { type: "tokenization", template: "ignored" }));
    expect((await get("transformation/legacy")).json.data).toMatchObject({ type: "tokenization", mapping_mode: "default", stores: ["builtin/internal"] });
    expect((await list("tokenization/keys")).json.data.keys).toEqual(["legacy"]);
  });

  test("key endpoints: 404 for a missing transformation, 400 for a non-tokenization one, LIST 404 when none", async () => {
    expect((await list("tokenization/keys")).status).toBe(404);
    expect((await post("tokenization/keys/nope/rotate")).status).toBe(404);
    await ok(post("transformations/masking/m", { template: "builtin/creditcardnumber" }));
    expect((await post("tokenization/keys/m/rotate")).json.errors[0]).toContain("tokenization only");
    expect((await post("transformations/tokenization/snapshot/m", {})).json.errors[0]).toContain("tokenization only");
    expect((await post("transformations/tokenization/snapshot/nope", {})).status).toBe(404);
  });

  test("metadata, validate and tokenized in batch; restore refuses garbage without writing anything", async () => {
    await ok(post("transformations/tokenization/t", { allowed_roles: ["r"] }));
    await ok(post("role/r", { transformations: ["t"] }));
    const [a] = (await post("encode/r", { batch_input: [{ value: "one", metadata: "k=v", ttl: 3600 }] })).json.data.batch_results;
    const meta = (await post("metadata/r", { batch_input: [{ value: a.encoded_value }, { value: "nope" }] })).json.data.batch_results;
    expect(meta[0]).toMatchObject({ metadata: "k=v", expiration_time: expect.stringMatching(/^\d{4}-/) });
    expect(meta[1].error).toContain("invalid token");
    expect((await post("tokenized/r", { batch_input: [{ value: "one" }, { value: "two" }] })).json.data.batch_results).toEqual([{ tokenized: true }, { tokenized: false }]);
    const snap = (await post("transformations/tokenization/snapshot/t", {})).json.data.values;
    const res = await post("transformations/tokenization/restore/t", { values: [...snap, "garbage"] });
    expect(res.json.errors).toEqual(["values[1] is not a value from a snapshot"]);
    expect((await post("transformations/tokenization/restore/t", { values: [] })).status).toBe(400);
  });
});
