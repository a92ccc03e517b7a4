import { describe, expect, test } from "vitest";
import { useSlapd } from "../support/slapd";
import { secretsApi } from "./helpers";
import { useEmulator } from "../support/emulator";

/** The directory engine over TLS to a real slapd: ldaps:// and StartTLS, verified with the given CA. */
const { slapd } = useSlapd({ tls: true });
const { emu } = useEmulator();
const { post, get } = secretsApi(emu, "directory/");

let n = 0;
async function roleWorks(extra: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const s = slapd();
  const user = `tls-${++n}`;
  await s.addUsers([user]);
  const cfg = await post("config", { binddn: s.adminDn, bindpass: s.adminPassword, userdn: s.usersDn, ...extra });
  expect(cfg.status, cfg.text).toBe(204);
  const res = await post(`roles/r${n}`, { service_account_name: user });
  if (res.status === 204) {
    const pw = (await get(`creds/r${n}`)).json.data.current_password;
    expect(await s.binds(s.userDn(user), pw)).toBe(true);
  }
  return res;
}

describe("directory engine over TLS", () => {
  test("ldaps:// with the server's certificate as CA", async () => {
    expect((await roleWorks({ url: slapd().ldapsUrl, certificate: slapd().certificate })).status).toBe(204);
  });

  test("ldaps:// without the CA fails verification (500 naming it); insecure_tls skips verification", async () => {
    const refused = await roleWorks({ url: slapd().ldapsUrl, certificate: "" });
    expect(refused.status).toBe(500);
    expect(refused.text).toMatch(/self[- ]signed|certificate/i);
    expect((await roleWorks({ url: slapd().ldapsUrl, insecure_tls: true })).status).toBe(204);
  });

  test("StartTLS on the ldap:// port", async () => {
    expect((await roleWorks({ url: slapd().url, starttls: true, certificate: slapd().certificate, insecure_tls: false })).status).toBe(204);
  });
});
