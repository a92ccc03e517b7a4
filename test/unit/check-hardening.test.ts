// Issue 7, check and secrets in messages: bad inputs stopped at check with the property named,
// every failure in one pass, one spelling of a checksum, and redaction that neither mangles
// messages nor misses escaped forms.
import { beforeAll, describe, expect, it } from "vitest";
import { check, diff } from "../../src/core/provider";
import type { ResourceDefinition } from "../../src/core/definition";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";
import { UNKNOWN } from "../../src/core/unknown";
import { redact, registerSecret, MIN_SECRET_LENGTH } from "../../src/http/redact";
import { alreadyExists } from "../../src/secrets/pathObject";
import { ConfigError, baseUrlProblem } from "../../src/core/config";
import { call } from "../../src/runtime";
import type { Context } from "../../src/core/definition";
import { HttpClient, InvalidInputError, NotFoundError, type HttpResponse, type RequestSpec } from "../../src/http";
import { useCountingServer } from "../support/counting";
import { MAX_SEGMENT_BYTES, segmentProblem } from "../../src/core/segment";
import { MAX_VALUE_BYTES } from "../../src/core/validate";
import * as transform from "../../src/secrets/transform";
import * as fs from "fs";
import * as path from "path";

// Kinds load on first use (src/kinds.ts); these tests use the definitions directly.
const DEFS: Record<string, ResourceDefinition> = {};
beforeAll(async () => {
  for (const k of KIND_NAMES) DEFS[k] = (await kindDefinition(k))!;
});

const failuresOf = (kind: string, inputs: Record<string, unknown>) => check(DEFS[kind], inputs).failures;

describe("names that become path segments are refused at check, naming the property", () => {
  const hostile = [".", "..", "a/b", "%2F", "a?b", "a#b", "a\u0001b", "\ud800", "x\udc00", "   ", "a\\b"];
  it.each(hostile.map((v) => [JSON.stringify(v), v]))("template name %s", (_label, value) => {
    const failures = failuresOf("secrets:TransformTemplate", { name: value, pattern: "(\\d{4})", alphabet: "builtin/numeric" });
    expect(failures.map((f) => f.property)).toContain("name");
  });

  it("a / in workspaceId is refused for notification configurations and runs", () => {
    expect(failuresOf("runs:NotificationConfiguration", { workspaceId: "ws-1/../x", name: "n", destinationType: "generic", url: "https://h.example.com" })
      .map((f) => f.property)).toContain("workspaceId");
    expect(failuresOf("runs:Run", { workspaceId: "ws/1" }).map((f) => f.property)).toContain("workspaceId");
  });

  it("a StoreSchema names a SQL store, never the built-in one (which has no tables)", () => {
    const failures = failuresOf("secrets:TransformStoreSchema", { store: "builtin/internal", username: "u", password: "p" });
    expect(failures).toEqual([{ property: "store", reason: expect.stringMatching(/built-in stores have no schema/) }]);
  });

  it("a mount segment is checked too", () => {
    expect(failuresOf("secrets:KeymgmtKey", { name: "k", mount: "keymgmt/..", type: "rsa-2048" }).map((f) => f.property)).toContain("mount");
  });

  it("the request layer turns a lone surrogate into a typed invalid-input error, not a URIError", async () => {
    const client = new HttpClient({ service: "secrets", baseUrl: "http://127.0.0.1:9/v1", token: "t0ken-for-unit-test" });
    await expect(client.request({ route: "GET /keymgmt/key/{name}", params: { name: "\ud800" } })).rejects.toBeInstanceOf(InvalidInputError);
  });
});

describe("path segments are at most 255 bytes of UTF-8", () => {
  it("255 bytes pass, 256 do not, counted in bytes rather than characters", () => {
    expect(segmentProblem("x".repeat(MAX_SEGMENT_BYTES))).toBeUndefined();
    expect(segmentProblem("x".repeat(MAX_SEGMENT_BYTES + 1))).toBe("must be at most 255 bytes (a path segment); got 256");
    expect(segmentProblem("é".repeat(127) + "x")).toBeUndefined();
    expect(segmentProblem("é".repeat(128))).toBe("must be at most 255 bytes (a path segment); got 256");
    expect(segmentProblem("x".repeat(100_000))).toBe("must be at most 255 bytes (a path segment); got 100000");
  });

  it("a mount is at most 1024 bytes, each of its segments at most 255, and a message never quotes a long segment whole", () => {
    const mountFailures = (mount: string) => failuresOf("secrets:KeymgmtKey", { name: "k", mount, type: "rsa-2048" }).filter((f) => f.property === "mount");
    const nested = (n: number) => Array.from({ length: n }, () => "m".repeat(200)).join("/");
    expect(mountFailures(nested(5))).toEqual([]);
    expect(mountFailures(nested(6))).toEqual([{ property: "mount", reason: "must be at most 1024 bytes (a mount path); got 1205" }]);
    const [long] = mountFailures(`keymgmt/${"z".repeat(300)}`);
    expect(long.reason).toBe(`segment "${"z".repeat(32)}…" must be at most 255 bytes (a path segment); got 300`);
    expect(mountFailures(`a/${"z".repeat(255)}`)).toEqual([]);
    expect(mountFailures("x".repeat(100_000))[0].reason).toBe("must be at most 1024 bytes (a mount path); got 100000");
  });
});

describe("check reports every failure in one pass", () => {
  it("a bad trigger and the missing url of a generic configuration, together", () => {
    const failures = failuresOf("runs:NotificationConfiguration", { workspaceId: "ws-1", name: "n", destinationType: "generic", triggers: ["bogus"] });
    expect(failures.map((f) => f.property).sort()).toEqual(["triggers[0]", "url"]);
  });
});

describe("a plugin checksum in another letter case is no difference", () => {
  const sha = "ab".repeat(32);
  const inputs = { type: "database", name: "db", command: "db-plugin" };
  it("upper case in the program against lower case in state, and the other way round", () => {
    const def = DEFS["secrets:PluginCatalogEntry"];
    const upper = check(def, { ...inputs, sha256: sha.toUpperCase() });
    expect(upper.failures).toEqual([]);
    expect(upper.inputs.sha256).toBe(sha);
    expect(diff(def, { ...upper.inputs, sha256: sha }, upper.inputs).changes).toBe(false);
    expect(diff(def, { ...upper.inputs, sha256: sha.toUpperCase() }, check(def, { ...inputs, sha256: sha }).inputs).changes).toBe(false);
  });
});

describe("the conflict of a taken path points renames to aliases before adopt", () => {
  it("names aliases first and says why adopt is wrong for a rename", () => {
    const message = alreadyExists("POST", "transform/template/x", "template").message;
    expect(message.indexOf("aliases")).toBeGreaterThan(-1);
    expect(message.indexOf("aliases")).toBeLessThan(message.indexOf("adopt: true"));
    expect(message).toMatch(/old resource's delete would remove the template/);
  });
});

describe("redaction", () => {
  it(`leaves values shorter than ${MIN_SECRET_LENGTH} characters alone, so messages stay readable`, () => {
    registerSecret(" ");
    registerSecret("eu");
    expect(redact("GET /keymgmt/kms/aws in eu-west-1")).toBe("GET /keymgmt/kms/aws in eu-west-1");
  });

  it("removes a secret echoed with non-ASCII characters escaped as \\uXXXX (either case), JSON-escaped or URL-encoded", () => {
    const secret = "pässwörd-<geheim>&1";
    registerSecret(secret);
    const lower = secret.replace(/[^\x20-\x7e]|[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    for (const echoed of [secret, lower, JSON.stringify({ body: JSON.stringify({ password: secret }) }), encodeURIComponent(secret)]) {
      const out = redact(`server said: ${echoed}`);
      expect(out, echoed).toContain("[REDACTED]");
      expect(out).not.toContain("geheim");
    }
    const upperHex = secret.replace(/[^\x20-\x7e]|[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`);
    expect(redact(upperHex)).toBe("[REDACTED]");
  });

  it("a config error about a URL setting never prints the value beyond its scheme and host shape", () => {
    const pasted = "svc-token-pasted-into-the-url-setting";
    const problem = baseUrlProblem(pasted)!;
    expect(problem).not.toContain(pasted);
    expect(problem).toMatch(/does not start with a scheme/);
    expect(baseUrlProblem(`ftp://user:${pasted}@host/v1`)).toBe('must be an http(s) URL, got a "ftp://" URL with a host');
    registerSecret("cfg-secret-value-42");
    expect(new ConfigError("bad value cfg-secret-value-42").message).toBe("bad value [REDACTED]");
  });
});

describe("check fuzz: every field of every kind against hostile values", () => {
  const HOSTILE: unknown[] = [
    null, 0, -1, 1.5, NaN, true, [], {}, [null], { a: 1 }, "", " ", ".", "..", "/", "a/b", "%2F", "?", "#", "\u0000", "\ud800",
    "__proto__", "constructor", "toString", "x".repeat(100_000), UNKNOWN, [UNKNOWN], { [UNKNOWN]: UNKNOWN },
  ];

  // check runs through the runtime entry, as in the provider host: it never sends a request for
  // inputs it refuses, and for a create it passes only the reads that record what the create could
  // be confused with (src/core/leftovers.ts), never a write.
  const { requests, routes } = useCountingServer();
  const runtimeCheck = async (kind: string, inputs: Record<string, unknown>) =>
    (await call(kind, "check", [{}, inputs])) as { failures: { property: string; reason: string }[] };

  it.each(KIND_NAMES)("%s: no crash, no request, and every failure names a field of the kind", async (kind) => {
    const fields = fieldsOf(kind);
    expect(fields.length).toBeGreaterThan(0);
    for (const field of fields) {
      for (const value of HOSTILE) {
        const label = `${kind}.${field} = ${JSON.stringify(value)?.slice(0, 20)}`;
        let failures: { property: string; reason: string }[];
        const sentBefore = routes().length;
        try {
          failures = (await runtimeCheck(kind, { [field]: value })).failures;
        } catch (e) {
          throw new Error(`${label}: check threw ${(e as Error).message}`);
        }
        const sent = routes().slice(sentBefore);
        if (failures.length > 0) expect(sent, `${label}: requests sent by a check that refused`).toEqual([]);
        else expect(sent.filter((r) => !/^(GET|LIST) /.test(r)), `${label}: writes sent by check`).toEqual([]);
        for (const f of failures) {
          // One field is set, so every failure is about a field: the hostile one or a missing one
          // (never the "(inputs)" fallback, which would leave the user guessing).
          expect(fields.concat(["connection"]), `${label}: failure at ${f.property}`).toContain(rootOf(f.property));
          expect(f.reason.length).toBeGreaterThan(0);
        }
        // A wrong type at a field is always refused at that field (never silently accepted).
        // `triggers` takes any value on purpose (it only forces a replacement when it changes).
        if (field !== "triggers" && typeof value === "number" && Number.isNaN(value) && !failures.some((f) => rootOf(f.property) === field)) {
          throw new Error(`${label} was accepted`);
        }
      }
    }
    expect(routes().filter((r) => !/^(GET|LIST) /.test(r)), "writes sent by check").toEqual([]);
  });

  describe("every field that becomes a path segment refuses path values at that field", () => {
    const PATH_VALUES = [".", "..", "/", "?", "#", "\u0000", "\ud800", "a/b", "a?b", "a#b", "%2F", "   ", "x\udc00"];
    let found: SegmentFields;
    beforeAll(async () => {
      found = await segmentFields();
    });

    it("the segment fields are read from the requests each definition makes, and account for every route parameter", () => {
      expect(found.unaccounted).toEqual([]);
      // The fields the issues named, so the derivation cannot quietly find nothing.
      for (const [kind, field] of [
        ["runs:NotificationConfiguration", "workspaceId"], ["runs:Run", "workspaceId"], ["secrets:TransformTemplate", "name"],
        ["secrets:TransformTemplate", "mount"], ["secrets:TransformTokenizationKeyConfig", "transformation"],
        ["secrets:TransformStoreSchema", "store"], ["secrets:ReplicationPathsFilter", "secondaryClusterId"],
        ["secrets:KeymgmtKeyDistribution", "kmsName"], ["secrets:KeymgmtKeyDistribution", "keyName"], ["secrets:PluginCatalogEntry", "type"],
        ["secrets:DirectoryCheckOut", "setName"],
      ]) expect(found.fields.map(([k, f]) => [k, f]), kind).toContainEqual([kind, field]);
    });

    it("each refuses a value longer than a path segment may be, naming itself and the limit, without a request", async () => {
      const sentBefore = requests();
      // 100,000 characters (the 431), and 256 bytes in 128 characters (the limit is in bytes).
      const accepted: string[] = [];
      for (const [kind, field] of found.fields) {
        // A field with a closed set of values (a plugin's type) refuses by naming the set.
        const closed = closedValues(shapeOf(kind)[field]).length > 0;
        for (const value of ["x".repeat(100_000), "é".repeat(128)]) {
          const { failures } = await runtimeCheck(kind, { [field]: value });
          const failure = failures.find((f) => f.property === field);
          if (!failure || (!closed && !/must be at most (255|1024) bytes \((a path segment|a mount path)\); got \d+/.test(failure.reason))) {
            accepted.push(`${kind}.${field} = ${value.length} characters: ${failure?.reason ?? "accepted"}`);
          }
          // The message names the limit, not the value.
          if (failure && failure.reason.length > 200) accepted.push(`${kind}.${field}: a message of ${failure.reason.length} characters`);
        }
      }
      expect(accepted).toEqual([]);
      expect(found.fields.length).toBeGreaterThanOrEqual(27);
      expect(requests() - sentBefore, "requests sent by check").toBe(0);
    });

    it("each refuses . .. / ? # NUL and lone surrogates, naming itself, without a request", async () => {
      const sentBefore = requests();
      const accepted: string[] = [];
      for (const [kind, field, param] of found.fields) {
        // A mount keeps its slashes on purpose (engines mount at nested paths such as transform/eu).
        for (const value of PATH_VALUES.filter((v) => !(param === "mount" && v === "a/b"))) {
          const { failures } = await runtimeCheck(kind, { [field]: value });
          if (!failures.some((f) => f.property === field)) accepted.push(`${kind}.${field} = ${JSON.stringify(value)}`);
        }
      }
      expect(accepted).toEqual([]);
      expect(requests() - sentBefore, "requests sent by check").toBe(0);
    });
  });

  describe("map keys are data: __proto__ is refused by name, constructor is kept as an own key", () => {
    // Built with JSON.parse: an object literal's __proto__ sets the prototype instead of a key.
    const withKey = (key: string, value: unknown) => JSON.parse(JSON.stringify({ [key === "__proto__" ? "PROTO" : key]: value }).replace('"PROTO"', '"__proto__"'));
    let maps: [string, string][];
    beforeAll(async () => {
      maps = [];
      for (const kind of KIND_NAMES) {
        for (const field of fieldsOf(kind)) {
          const { failures } = await runtimeCheck(kind, { [field]: { mapkeyx: "v" } });
          // A map takes an object: its failures, if any, are about one of its keys.
          if (!failures.some((f) => f.property === field)) maps.push([kind, field]);
        }
      }
    });

    it("the map-typed inputs are found (metadata, credentials, triggers)", () => {
      for (const pair of [["secrets:IdentityEntityAlias", "customMetadata"], ["secrets:KeymgmtKmsProvider", "credentials"], ["runs:Run", "triggers"],
        ["secrets:TransformStoreSchema", "triggers"]]) expect(maps).toContainEqual(pair);
    });

    it("__proto__ (with a string or an object value) is refused at the key, and no prototype is touched", async () => {
      const sentBefore = requests();
      const missed: string[] = [];
      for (const [kind, field] of maps) {
        for (const value of ["v", { polluted: "yes" }]) {
          const r = await runtimeCheck(kind, { [field]: withKey("__proto__", value) }) as { inputs: Record<string, unknown>; failures: { property: string; reason: string }[] };
          const failure = r.failures.find((f) => f.property === `${field}.__proto__`);
          if (!failure || !failure.reason.includes('"__proto__" cannot be a key')) missed.push(`${kind}.${field}: ${JSON.stringify(r.failures)}`);
          const copy = r.inputs[field] as object;
          if (Object.getPrototypeOf(copy) !== Object.prototype) missed.push(`${kind}.${field}: the checked copy's prototype was replaced`);
        }
      }
      expect(missed).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(requests() - sentBefore, "requests sent by check").toBe(0);
    });

    it("constructor is an ordinary key: kept as an own key of the checked inputs, or refused naming it", async () => {
      const wrong: string[] = [];
      for (const [kind, field] of maps) {
        const r = await runtimeCheck(kind, { [field]: withKey("constructor", "c") }) as { inputs: Record<string, unknown>; failures: { property: string; reason: string }[] };
        const atField = r.failures.filter((f) => f.property === field || f.property.startsWith(`${field}.`));
        const copy = r.inputs[field] as Record<string, unknown>;
        const kept = Object.getOwnPropertyDescriptor(copy, "constructor")?.value === "c" && Object.getPrototypeOf(copy) === Object.prototype;
        if (atField.length === 0 ? !kept : !atField.every((f) => f.property === `${field}.constructor`)) wrong.push(`${kind}.${field}: ${JSON.stringify(atField)} kept=${kept}`);
      }
      expect(wrong).toEqual([]);
    });

    it("the function with map-typed arguments (encode's metadata, alone and per batch item) refuses __proto__ before any request", async () => {
      const before = requests();
      for (const args of [
        { role: "r", value: "v", metadata: withKey("__proto__", "x") },
        { role: "r", batchInput: [{ value: "v", metadata: withKey("__proto__", "x") }] },
      ]) {
        const e = await transform.encode(args as never).then(() => undefined, (x: unknown) => x);
        expect(e).toBeInstanceOf(InvalidInputError);
        expect((e as InvalidInputError).problems.map((p) => p.path)).toContainEqual(expect.stringMatching(/^(batchInput\[0\]\.)?metadata\.__proto__$/));
      }
      expect(requests() - before).toBe(0);
    });

    it("a resource given __proto__ in a plain map fails at once, naming the key: the SDK would drop the key before check", async () => {
      const { EntityAlias } = await import("../../src/secrets/identity");
      expect(() => new EntityAlias("a", { name: "n", canonicalId: "c", mountAccessor: "auth_x", customMetadata: withKey("__proto__", "x") }))
        .toThrow(/^secrets:IdentityEntityAlias "a": customMetadata\.__proto__: "__proto__" cannot be a key/);
    });

    it("z.record appears only in the inputs covered above (a new map-typed input needs its case here)", () => {
      const files: string[] = [];
      const walk = (dir: string) => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const p = path.join(dir, e.name);
          // The emulator and the review command read other programs' data, not users' inputs.
          if (e.isDirectory()) { if (p !== path.join("src", "emulator") && p !== path.join("src", "review")) walk(p); } else if (p.endsWith(".ts") && fs.readFileSync(p, "utf8").includes("z.record(")) files.push(path.relative("src", p));
        }
      };
      walk("src");
      expect(files.sort()).toEqual(["runs/run.ts", "secrets/identity/entityAlias.ts", "secrets/keymgmt/kmsProvider.ts", "secrets/transform/functions/values.ts"]);
    });
  });

  describe("string values are at most 32 MiB (a request body), naming the property", () => {
    const huge = "y".repeat(MAX_VALUE_BYTES + 1);
    it("in a resource's input", async () => {
      const { failures } = await runtimeCheck("secrets:TransformTemplate", { name: "t", pattern: huge, alphabet: "builtin/numeric" });
      // Only this failure at the property: the pattern's own rule would quote 32 MiB.
      expect(failures.filter((f) => f.property === "pattern")).toEqual([
        { property: "pattern", reason: `must be at most ${MAX_VALUE_BYTES} bytes (32 MiB, a request body); got ${MAX_VALUE_BYTES + 1}` },
      ]);
    });
    it("in a function's argument, nested in a list", async () => {
      const e = await transform.decode({ role: "r", batchInput: [{ value: "ok" }, { value: huge }] }).then(() => undefined, (x: unknown) => x);
      expect((e as InvalidInputError).problems).toContainEqual({ path: "batchInput[1].value", message: expect.stringMatching(/^must be at most 33554432 bytes/) });
    });
  });

  it.each(KIND_NAMES)("%s: an unknown property and a misspelt one are refused by name, with no request", async (kind) => {
    const sentBefore = requests();
    const fields = fieldsOf(kind);
    const typo = `${fields[0]!.slice(0, -1)}x`;
    const { failures } = await runtimeCheck(kind, { zzNotAProperty: 1, [typo]: "v" });
    expect(failures).toContainEqual({ property: "zzNotAProperty", reason: "unknown property" });
    expect(failures.find((f) => f.property === typo)?.reason ?? "", `${kind}.${typo}`).toMatch(/^unknown property/);
    expect(requests() - sentBefore, "requests sent by check").toBe(0);
  });

  it.each(KIND_NAMES)("%s: a connection URL with credentials, dot segments, a query or a fragment is refused at connection.url, with no request", async (kind) => {
    const sentBefore = requests();
    for (const url of ["http://user:pw-7Zq2@127.0.0.1:9/v1", "http://127.0.0.1:9/v1/../x", "http://127.0.0.1:9/v1?x=1", "http://127.0.0.1:9/v1#f"]) {
      const { failures } = await runtimeCheck(kind, { connection: { url, token: "t0ken-fuzz-0001" } });
      expect(failures.map((f) => f.property), `${kind} ${url}`).toContain("connection.url");
      for (const f of failures) expect(f.reason).not.toContain("pw-7Zq2");
    }
    expect(requests() - sentBefore, "requests sent by check").toBe(0);
  });

  it("the request counter counts what the runtime sends (so 0 above means none was sent)", async () => {
    const sentBefore = requests();
    const r = (await call("secrets:TransformTemplate", "read", ["transform/template/x", { name: "x", mount: "transform" }])) as { id: string };
    expect(r.id).toBe("");
    // Counted twice: once when the client sends it, once when the server receives it.
    expect(requests() - sentBefore).toBe(2);
  });
});

/** `users[0].id` → `users`. */
function rootOf(property: string): string {
  return /^[^.[]*/.exec(property)![0];
}

function fieldsOf(kind: string): string[] {
  return Object.keys(shapeOf(kind));
}

function shapeOf(kind: string): Record<string, ZodLike> {
  const schema = DEFS[kind].schema() as unknown as { shape?: Record<string, ZodLike>; _zod?: { def?: { shape?: Record<string, ZodLike> } } };
  return schema.shape ?? schema._zod?.def?.shape ?? {};
}

interface ZodLike { options?: unknown[]; _zod: { def: { innerType?: ZodLike; values?: unknown[] } } }

/** The values of an enum or literal field (through optional/default wrappers), else none. */
function closedValues(field: ZodLike): string[] {
  let t = field;
  while (t._zod.def.innerType) t = t._zod.def.innerType;
  return (t.options ?? t._zod.def.values ?? []).filter((v): v is string => typeof v === "string");
}

interface SegmentFields {
  /** [kind, field, route parameter] for each field whose value became a path parameter. */
  fields: [string, string, string][];
  /**
   * Route parameters whose value came from no field and is not the resource id; kinds that made
   * no request; methods that threw before any request.
   */
  unaccounted: string[];
}

/**
 * Which input fields become path segments, read from the definitions themselves: each kind's
 * create, read, update and delete run against a recording client (once with every object absent,
 * once with every object present), with a distinct marker in every field that takes a string and
 * a member of each enum; a path parameter holding a field's marker comes from that field.
 */
async function segmentFields(): Promise<SegmentFields> {
  const fields: [string, string, string][] = [];
  const unaccounted: string[] = [];
  const ID = "idmarker";
  for (const kind of KIND_NAMES) {
    const def = DEFS[kind];
    const shape = shapeOf(kind);
    const inputs: Record<string, unknown> = { ...(def.defaults ?? {}) };
    const owner = new Map<string, string>();
    Object.keys(shape).forEach((field, i) => {
      const takes = (v: string) => !check(def, { [field]: v }).failures.some((f) => rootOf(f.property) === field);
      const candidates = [`mark${i}x`, ...closedValues(shape[field])];
      const value = candidates.find(takes);
      if (value === undefined) return;
      inputs[field] = value;
      owner.set(value, owner.has(value) ? "(ambiguous)" : field);
    });
    const seen: { route: string; params: Record<string, string> }[] = [];
    for (const exists of [false, true]) {
      const client = {
        baseUrl: "http://127.0.0.1:9/v1",
        async request(spec: RequestSpec): Promise<HttpResponse> {
          // Enough for every path a method takes; a method that polls stops here.
          if (seen.length > 500) throw new Error("request limit of the recording client");
          seen.push({ route: spec.route, params: spec.params ?? {} });
          const method = spec.route.split(" ")[0];
          if (method !== "GET" && method !== "LIST") return { status: 204, headers: {}, body: undefined };
          if (exists) return { status: 200, headers: {}, body: { data: {} } };
          if (spec.expect?.includes(404)) return { status: 404, headers: {}, body: undefined };
          throw new NotFoundError({ service: "secrets", method, path: spec.route, status: 404, messages: [] });
        },
      };
      const ctx: Context = { client: () => client as unknown as HttpClient, log: () => undefined };
      const methods = [() => def.create(ctx, inputs), () => def.read(ctx, ID, inputs), () => def.update(ctx, ID, inputs, inputs), () => def.delete(ctx, ID, inputs)];
      for (const [i, method] of methods.entries()) {
        const before = seen.length;
        // Failing on the recording client's answers is expected; failing before any request
        // is not, and would leave the method's paths unchecked.
        await Promise.resolve().then((): Promise<unknown> => method()).catch((e: Error) => {
          if (seen.length === before) unaccounted.push(`${kind}: ${["create", "read", "update", "delete"][i]} threw before any request: ${e.message}`);
        });
      }
    }
    if (seen.length === 0) unaccounted.push(`${kind}: no method made a request`);
    for (const { route, params } of seen) {
      for (const [, name] of route.matchAll(/\{(\w+)\}/g)) {
        const value = params[name];
        const field = value === undefined ? undefined : owner.get(value);
        if (field !== undefined && field !== "(ambiguous)") {
          if (!fields.some(([k, f]) => k === kind && f === field)) fields.push([kind, field, name]);
        } else if (value !== ID) {
          unaccounted.push(`${kind}: ${route} {${name}} = ${JSON.stringify(value)}`);
        }
      }
    }
  }
  return { fields, unaccounted };
}

describe("a misspelt property is refused at check, naming the nearest known one", () => {
  const sha = "ab".repeat(32);
  const cases: [kind: string, inputs: Record<string, unknown>, typo: string, meant: string][] = [
    ["secrets:KeymgmtKmsProvider", { name: "aws", provider: "awskms", keyCollection: "eu-west-1" }, "credentails", "credentials"],
    ["secrets:KeymgmtKeyDistribution", { keyName: "k", kmsName: "aws", purpose: ["sign"] }, "protecton", "protection"],
    ["secrets:IdentityEntityAlias", { name: "alice", canonicalId: "ent-1", mountAccessor: "auth_userpass_1" }, "customMetdata", "customMetadata"],
    ["secrets:MfaDualFactorMethod", { secretKey: "sk", integrationKey: "ik", apiHostname: "api.example.com" }, "usePasscod", "usePasscode"],
    ["secrets:PluginCatalogEntry", { type: "database", name: "db", sha256: sha, command: "db-plugin" }, "evn", "env"],
  ];
  it.each(cases)("%s: %s", (kind, inputs, typo, meant) => {
    expect(failuresOf(kind, inputs)).toEqual([]);
    expect(failuresOf(kind, { ...inputs, [typo]: ["A=b"] })).toEqual([{ property: typo, reason: `unknown property; did you mean ${meant}?` }]);
  });
});
