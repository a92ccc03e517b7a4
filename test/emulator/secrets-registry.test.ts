import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { secretsApi } from "./helpers";
import { controlResponse, useEmulator } from "../support/emulator";

const { emu } = useEmulator();
const { post, get, list, del } = secretsApi(emu, "registry/");

const POLICY = Buffer.from('key_prefix "" { policy = "read" }').toString("base64");

async function token(type: "management" | "client" = "management"): Promise<string> {
  const res = await controlResponse(emu, "POST", "/registry/tokens", { type });
  expect(res.status).toBe(200);
  return res.json.token;
}

describe("access config", () => {
  test("needs a management token of the registry; read omits the token", async () => {
    const management = await token();
    expect((await post("config/access", { address: "127.0.0.1:8500", token: management })).status).toBe(204);
    const read = await get("config/access");
    expect(read.json.data).toEqual({ address: "127.0.0.1:8500", scheme: "http", ca_cert: "", client_cert: "" });
    expect(read.text).not.toContain(management);
  });

  test("bad address, scheme, unknown or client token, half a client pair: all reported, nothing stored", async () => {
    const client = await token("client");
    const res = await post("config/access", { address: "localhost", scheme: "ftp", token: client, client_cert: "x" });
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([
      'address must be host:port, got "localhost"',
      "scheme must be http or https",
      "token must be a management-type registry ACL token; this one is a client token",
      "client_cert and client_key must be given together",
      "client_cert must be x509 PEM",
    ]);
    expect((await post("config/access", { address: "h:1", token: "nope" })).json.errors).toEqual(["token is not a registry ACL token known to the registry"]);
    expect((await post("config/access", { address: "h:1" })).json.errors).toEqual(["missing token"]);
    expect((await get("config/access")).status).toBe(404);
  });
});

describe("access config TLS material", () => {
  // Checked-in, test-only material (see fixtures/registry-pem/README.md): a CA, and a client
  // certificate it signed with the client's key.
  const pem = (file: string) => readFileSync(join(__dirname, "fixtures", "registry-pem", file), "utf8");
  const ca = pem("test-only-ca.pem");
  const cert = pem("test-only-client-cert.pem");
  const key = pem("test-only-client-key.pem");

  test("real PEM is accepted; the key never comes back; GET and DELETE config/access", async () => {
    const res = await post("config/access", { address: "[::1]:8501", scheme: "https", token: await token(), ca_cert: ca, client_cert: cert, client_key: key });
    expect(res.status, res.text).toBe(204);
    const read = await get("config/access");
    expect(read.json.data).toEqual({ address: "[::1]:8501", scheme: "https", ca_cert: ca, client_cert: cert });
    expect(read.text).not.toContain("PRIVATE KEY");
    expect((await post("config/access", { address: "h:1", token: await token(), client_cert: cert, client_key: "not a key" })).json.errors).toEqual(["client_key must be a PEM private key"]);
    // A certificate is not a key, nor a key a certificate.
    expect((await post("config/access", { address: "h:1", token: await token(), ca_cert: key, client_cert: cert, client_key: cert })).json.errors)
      .toEqual(["ca_cert must be x509 PEM", "client_key must be a PEM private key"]);
    expect((await del("config/access")).status).toBe(204);
    expect((await get("config/access")).status).toBe(404);
  });
});

describe("roles and creds", () => {
  test("1.4+ fields read back with lease as duration text; a client role needs a policy", async () => {
    expect((await post("roles/r", { token_type: "client" })).json.errors).toEqual(["Use either a policy document, a list of policies or roles, or set token_type to management"]);
    expect((await post("roles/r", { policy: "not base64!" })).json.errors).toEqual(["policy must be a base64-encoded ACL policy"]);
    expect((await post("roles/r", { policies: ["p"], ttl: "2h", max_ttl: "1h" })).json.errors).toEqual(["ttl (7200s) must not exceed max_ttl (3600s)"]);
    expect((await post("roles/r", { policy: POLICY, policies: ["a", "b"], local: true, ttl: "1h", max_ttl: 7200 })).status).toBe(204);
    expect((await get("roles/r")).json.data).toEqual({ token_type: "client", policy: POLICY, policies: ["a", "b"], local: true, ttl: 3600, max_ttl: 7200, lease: "1h0m0s" });
    expect((await post("roles/m", { token_type: "management" })).status).toBe(204);
    expect((await list("roles")).json.data.keys).toEqual(["m", "r"]);
  });

  test("the older variant: lease and comma-joined policies", async () => {
    expect((await post("roles/old", { lease: "90s", policies: "a, b" })).status).toBe(204);
    expect((await get("roles/old")).json.data).toMatchObject({ policies: ["a", "b"], ttl: 90, lease: "1m30s" });
    expect((await post("roles/old", { lease: "90s", ttl: 60, policies: "a" })).json.errors[0]).toMatch(/not both/);
  });

  test("creds make a new token per call with the role's lease; a management token from a role configures access", async () => {
    expect((await post("roles/m", { token_type: "management", ttl: "30m" })).status).toBe(204);
    expect((await get("creds/m")).json.errors).toEqual(["no registry access is configured: POST config/access first"]);
    await post("config/access", { address: "registry:8500", token: await token() });
    const a = await get("creds/m");
    const b = await get("creds/m");
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ lease_duration: 1800, renewable: true, data: { token: expect.any(String), accessor: expect.any(String), local: false } });
    expect(a.json.lease_id).toMatch(/^registry\/creds\/m\//);
    expect(a.json.data.token).not.toBe(b.json.data.token);
    expect((await post("config/access", { address: "registry:8501", token: a.json.data.token })).status).toBe(204);
    await post("roles/c", { policies: ["read"] });
    const client = (await get("creds/c")).json.data.token;
    expect((await post("config/access", { address: "registry:8501", token: client })).json.errors[0]).toMatch(/management-type/);
    expect((await get("creds/ghost")).json.errors).toEqual(['role "ghost" does not exist']);
  });

  test("reading a missing role is 404; deleting one succeeds; odd names are ordinary", async () => {
    expect((await get("roles/ghost")).status).toBe(404);
    expect((await del("roles/ghost")).status).toBe(204);
    expect((await get("roles/__proto__")).status).toBe(404);
    expect((await post("roles/__proto__", { policies: ["p"] })).status).toBe(204);
    expect((await get("roles/__proto__")).json.data.policies).toEqual(["p"]);
    expect((await get("roles/toString")).status).toBe(404);
  });
});
