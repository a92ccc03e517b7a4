import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Attribute, Change, Client } from "ldapts";
import { afterAll, beforeAll } from "vitest";
import { freePort } from "./ports";
import { needsReal } from "./real";

/**
 * A throwaway OpenLDAP server (Debian's slapd) on 127.0.0.1: its own config and database in a temp
 * folder, a free port, stopped and removed by `stop`. `admin` is the bind account the directory
 * engine is given (an ordinary entry, so its password can be rotated); `manager` is the rootdn the
 * tests use to set things up.
 */
export interface Slapd {
  url: string;
  /** With `tls`: an ldaps:// URL and the self-signed certificate (PEM) it presents; the ldap:// URL then offers StartTLS. */
  ldapsUrl?: string;
  certificate?: string;
  suffix: string;
  adminDn: string;
  adminPassword: string;
  usersDn: string;
  /** Adds inetOrgPerson entries uid=<name> under ou=users with the given password. */
  addUsers(names: string[], password?: string): Promise<void>;
  /** Whether a simple bind with `dn`/`password` succeeds. */
  binds(dn: string, password: string): Promise<boolean>;
  userDn(name: string): string;
  stop(): Promise<void>;
}

const SLAPD = ["/usr/sbin/slapd", "/usr/local/libexec/slapd", "/usr/libexec/slapd"].find((p) => existsSync(p));
const SCHEMA = "/etc/ldap/schema";
const MODULES = ["/usr/lib/ldap", "/usr/lib/openldap", "/usr/lib64/openldap"].find((p) => existsSync(join(p, "back_mdb.so")) || existsSync(join(p, "back_mdb.la")));

/** Why a real slapd cannot be had here, or undefined when it can. */
export function slapdUnavailable(): string | undefined {
  if (!SLAPD) return "slapd is not installed (apt-get install -y slapd)";
  if (!existsSync(join(SCHEMA, "inetorgperson.schema"))) return `${SCHEMA}/inetorgperson.schema is missing`;
  const version = spawnSync(SLAPD, ["-VV"], { encoding: "utf8" });
  if (version.error) return `slapd cannot run: ${version.error.message}`;
  return undefined;
}

async function tryBind(url: string, dn: string, password: string): Promise<boolean> {
  const client = new Client({ url, connectTimeout: 2000, timeout: 5000 });
  try {
    await client.bind(dn, password);
    return true;
  } catch {
    return false;
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/** A self-signed certificate for 127.0.0.1 made with the openssl command; undefined when it is missing. */
function selfSigned(dir: string): { cert: string; key: string } | undefined {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const r = spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert], { encoding: "utf8" });
  return r.status === 0 ? { cert, key } : undefined;
}

export async function startSlapd(options: { tls?: boolean } = {}): Promise<Slapd> {
  const dir = mkdtempSync(join(tmpdir(), "svc-slapd-"));
  mkdirSync(join(dir, "db"));
  const tls = options.tls ? selfSigned(dir) : undefined;
  if (options.tls && !tls) throw new Error("openssl could not make a test certificate");
  const suffix = "dc=example,dc=org";
  const adminDn = `cn=admin,${suffix}`;
  const managerDn = `cn=manager,${suffix}`;
  const managerPassword = "manager-secret";
  const conf = [
    ...["core", "cosine", "inetorgperson", "nis"].map((s) => `include ${SCHEMA}/${s}.schema`),
    `pidfile ${join(dir, "slapd.pid")}`,
    // Global directives: they must come before the database section.
    ...(tls ? [`TLSCertificateFile ${tls.cert}`, `TLSCertificateKeyFile ${tls.key}`] : []),
    ...(MODULES ? [`modulepath ${MODULES}`, "moduleload back_mdb"] : []),
    "database mdb",
    `suffix "${suffix}"`,
    `rootdn "${managerDn}"`,
    `rootpw ${managerPassword}`,
    `directory ${join(dir, "db")}`,
    "maxsize 10485760",
    `access to attrs=userPassword by dn.exact="${adminDn}" write by self write by anonymous auth by * none`,
    `access to * by dn.exact="${adminDn}" write by * read`,
  ].join("\n");
  writeFileSync(join(dir, "slapd.conf"), conf + "\n");

  let lastError = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const url = `ldap://127.0.0.1:${port}`;
    const ldapsUrl = tls ? `ldaps://127.0.0.1:${await freePort()}` : undefined;
    const listen = ldapsUrl ? `${url}/ ${ldapsUrl}/` : `${url}/`;
    const child: ChildProcess = spawn(SLAPD!, ["-f", join(dir, "slapd.conf"), "-h", listen, "-d", "0"], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    let up = false;
    for (let i = 0; i < 100 && child.exitCode === null; i++) {
      if (await tryBind(url, managerDn, managerPassword)) {
        up = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!up) {
      child.kill("SIGKILL");
      await exited;
      lastError = stderr;
      continue;
    }
    const manage = async <T>(work: (c: Client) => Promise<T>): Promise<T> => {
      const c = new Client({ url, connectTimeout: 2000, timeout: 5000 });
      try {
        await c.bind(managerDn, managerPassword);
        return await work(c);
      } finally {
        await c.unbind().catch(() => undefined);
      }
    };
    const usersDn = `ou=users,${suffix}`;
    const adminPassword = "initial-admin-password";
    await manage(async (c) => {
      await c.add(suffix, { objectClass: ["top", "dcObject", "organization"], dc: "example", o: "Example" });
      await c.add(usersDn, { objectClass: ["top", "organizationalUnit"], ou: "users" });
      await c.add(adminDn, { objectClass: ["top", "person"], cn: "admin", sn: "admin", userPassword: adminPassword });
    });
    const userDn = (name: string) => `uid=${name},${usersDn}`;
    return {
      url, suffix, adminDn, adminPassword, usersDn, userDn, ldapsUrl,
      certificate: tls ? readFileSync(tls.cert, "utf8") : undefined,
      addUsers: (names, password = "initial-user-password") =>
        manage(async (c) => {
          for (const n of names) await c.add(userDn(n), { objectClass: ["top", "person", "organizationalPerson", "inetOrgPerson"], uid: n, cn: n, sn: n, userPassword: password });
        }),
      binds: (dn, password) => tryBind(url, dn, password),
      async stop() {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`slapd did not start: ${lastError.slice(-2000)}`);
}

/** Sets a user's password as the manager would (an out-of-band change). */
export async function setPassword(s: Slapd, dn: string, password: string, managerPassword = "manager-secret"): Promise<void> {
  const c = new Client({ url: s.url });
  try {
    await c.bind(`cn=manager,${s.suffix}`, managerPassword);
    await c.modify(dn, new Change({ operation: "replace", modification: new Attribute({ type: "userPassword", values: [password] }) }));
  } finally {
    await c.unbind().catch(() => undefined);
  }
}

/**
 * The slapd for the enclosing describe (or the file, at its top level): started in beforeAll,
 * stopped in afterAll. Its tests need it (test/support/real.ts): when slapd cannot be had they skip
 * with the reason printed, or fail each with SVC_REQUIRE_REAL=1.
 */
export function useSlapd(options: { tls?: boolean } = {}): { slapd: () => Slapd } {
  let server: Slapd | undefined;
  if (needsReal("the real OpenLDAP tests", slapdUnavailable())) {
    beforeAll(async () => {
      server = await startSlapd(options);
    }, 30_000);
    afterAll(async () => server?.stop());
  }
  return { slapd: () => server! };
}
