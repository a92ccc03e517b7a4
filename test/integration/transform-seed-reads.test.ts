// A server that reads transformations back with only the fields the seed lists for
// GET /transform/transformation/:name (allowed_roles, templates, tweak_source, type). The emulator
// answers more, so this stub stands for a real server that answers exactly the seed: whatever the
// program set beyond those fields must neither diff nor replace on the next up.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { checked, created, type Props } from "../support/calls";

let server: http.Server;
const written = new Map<string, Record<string, unknown>>();
const seen: string[] = [];

function reply(res: http.ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

/** Only the seed's fields: tweak_source is empty for the types it does not apply to. */
function seedRead(type: string, b: Record<string, unknown>): Record<string, unknown> {
  return {
    allowed_roles: Array.isArray(b.allowed_roles) ? b.allowed_roles : [],
    templates: type === "tokenization" || !b.template ? [] : [b.template],
    tweak_source: type === "fpe" ? (b.tweak_source ?? "supplied") : "",
    type,
  };
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString()));
    req.on("end", () => {
      seen.push(`${req.method} ${req.url}`);
      const typed = /^\/v1\/transform\/transformations\/(fpe|masking|tokenization)\/([^/]+)$/.exec(req.url ?? "");
      const generic = /^\/v1\/transform\/transformation\/([^/]+)$/.exec(req.url ?? "");
      if (req.method === "POST" && typed) {
        written.set(typed[2], { ...(JSON.parse(text) as Record<string, unknown>), type: typed[1] });
        return reply(res, 204);
      }
      if (req.method === "POST" && generic) {
        written.set(generic[1], JSON.parse(text) as Record<string, unknown>);
        return reply(res, 204);
      }
      if (req.method === "GET" && generic) {
        const b = written.get(generic[1]);
        if (!b) return reply(res, 404, { errors: [] });
        return reply(res, 200, { request_id: "r", lease_id: "", renewable: false, lease_duration: 0, data: seedRead(String(b.type), b), wrap_info: null, warnings: null, auth: null });
      }
      reply(res, 404, { errors: [`no handler for ${req.method} ${req.url}`] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.SVC_SECRETS_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  process.env.SVC_SECRETS_TOKEN = "stub-token";
  process.env.SVC_MAX_RETRIES = "0";
});

beforeEach(() => {
  written.clear();
  seen.length = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** create, then what `pulumi up` does next time: refresh's read, check against the read state, diff. */
async function upAgain(kind: string, args: Props): Promise<{ outs: Props; read: Props; diff: unknown }> {
  const { id, outs } = await created(kind, args);
  const read = ((await call(kind, "read", [id, outs])) as { props: Props }).props;
  const inputs = await checked(kind, args, read);
  return { outs, read, diff: await call(kind, "diff", [id, read, inputs]) };
}

const none = { changes: false, replaces: [], deleteBeforeReplace: false };

describe("transformations against a server that reads back only the seed's fields", () => {
  it("tokenization: mappingMode, stores and maxTtl the read leaves out neither diff nor replace", async () => {
    const args = { name: "ssn", mappingMode: "exportable", stores: ["db", "db-replica"], maxTtl: "24h", allowedRoles: ["app"] };
    const { outs, read, diff } = await upAgain("secrets:TransformTokenizationTransformation", args);
    expect(outs).toMatchObject({ mappingMode: "exportable", stores: ["db", "db-replica"], maxTtl: "24h", allowedRoles: ["app"] });
    expect(read).toEqual(outs);
    expect(diff).toEqual(none);
    // The read went to the server (which answered only the seed's four fields).
    expect(seen).toContain("GET /v1/transform/transformation/ssn");
  });

  it("tokenization: a role change read back is still seen (the fields the seed does list are compared)", async () => {
    const args = { name: "ssn", stores: ["db"], allowedRoles: ["app"] };
    const { id, outs } = await created("secrets:TransformTokenizationTransformation", args);
    written.set("ssn", { ...written.get("ssn"), allowed_roles: ["other"] });
    const read = ((await call("secrets:TransformTokenizationTransformation", "read", [id, outs])) as { props: Props }).props;
    expect(read).toMatchObject({ allowedRoles: ["other"], stores: ["db"], mappingMode: "default" });
    const inputs = await checked("secrets:TransformTokenizationTransformation", args, read);
    expect(await call("secrets:TransformTokenizationTransformation", "diff", [id, read, inputs])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("masking: a masking character the read leaves out does not diff", async () => {
    const args = { name: "m", template: "builtin/creditcardnumber", maskingCharacter: "#", allowedRoles: ["support"] };
    const { read, diff } = await upAgain("secrets:TransformMaskingTransformation", args);
    expect(read.maskingCharacter).toBe("#");
    expect(diff).toEqual(none);
  });

  it("fpe: template and tweak source come from the read and do not diff", async () => {
    const { read, diff } = await upAgain("secrets:TransformFpeTransformation", { name: "card", template: "builtin/creditcardnumber", tweakSource: "internal", allowedRoles: ["pay"] });
    expect(read).toMatchObject({ template: "builtin/creditcardnumber", tweakSource: "internal" });
    expect(diff).toEqual(none);
  });

  it("generic Transformation: masking character and tokenization fields the read leaves out do not diff", async () => {
    const masking = await upAgain("secrets:TransformTransformation", { name: "g", type: "masking", template: "builtin/creditcardnumber", maskingCharacter: "X" });
    expect(masking.read.maskingCharacter).toBe("X");
    expect(masking.diff).toEqual(none);
    const tok = await upAgain("secrets:TransformTransformation", { name: "t", type: "tokenization", template: "unused", allowedRoles: ["a"] });
    expect(tok.diff).toEqual(none);
  });
});
