import { connect } from "node:net";
import type { ConnectionOptions } from "node:tls";
import { Attribute, Change, Client, escapeFilter } from "ldapts";
import { DirectoryError, type Directory } from "./backend";
import type { DirectoryConfig } from "./state";

/**
 * A real LDAP server as the engine's directory (through ldapts), and the choice made when a config
 * is written: this backend when one of the config's URLs accepts a connection, else the built-in one.
 */

export const splitUrls = (urls: string) => urls.split(",").map((u) => u.trim()).filter((u) => u !== "");

const TLS_VERSIONS: Record<string, ConnectionOptions["minVersion"]> = { tls10: "TLSv1", tls11: "TLSv1.1", tls12: "TLSv1.2", tls13: "TLSv1.3" };

function tlsOptions(cfg: DirectoryConfig): ConnectionOptions {
  return {
    rejectUnauthorized: !cfg.insecure_tls,
    ...(cfg.certificate ? { ca: cfg.certificate } : {}),
    minVersion: TLS_VERSIONS[cfg.tls_min_version] ?? "TLSv1.2",
    maxVersion: TLS_VERSIONS[cfg.tls_max_version] ?? "TLSv1.3",
  };
}

const isConnectionError = (e: unknown) => {
  const code = (e as { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z]+/.test(code) || /connect|timeout|closed/i.test((e as Error).message ?? "");
};

/** ldapts result errors carry the LDAP code and an often empty message: name both. */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return "no URL to connect to";
  const code = (e as { code?: unknown }).code;
  const detail = e.message.trim();
  const name = e.constructor.name.replace(/Error$/, "").replace(/([a-z])([A-Z])/g, "$1 $2");
  return typeof code === "number" ? `${name} (LDAP result ${code})${detail && !/^Code: /.test(detail) ? `: ${detail}` : ""}` : detail || name;
}

/** Binds with binddn/bindpass on the first URL that connects and runs `work`; always unbinds. */
async function withClient<T>(cfg: DirectoryConfig, work: (client: Client) => Promise<T>): Promise<T> {
  const bindName = cfg.upndomain ? `${cfg.binddn}@${cfg.upndomain}` : cfg.binddn;
  let lastError: unknown;
  for (const url of splitUrls(cfg.url)) {
    // TLS options only for ldaps: given to an ldap:// client they make it start TLS at once.
    const tls = url.startsWith("ldaps:") ? { tlsOptions: tlsOptions(cfg) } : {};
    const client = new Client({ url, timeout: cfg.request_timeout * 1000, connectTimeout: cfg.connection_timeout * 1000, strictDN: false, ...tls });
    try {
      // The upgraded socket has no host of its own: name it, so the certificate is checked against it.
      if (cfg.starttls && url.startsWith("ldap:")) await client.startTLS({ ...tlsOptions(cfg), host: new URL(url).hostname });
      await client.bind(bindName, cfg.bindpass);
      return await work(client);
    } catch (e) {
      lastError = e;
      // Only connection failures move on to the next URL, as the service does.
      if (!isConnectionError(e)) break;
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }
  throw new DirectoryError(`directory ${cfg.url}: ${describe(lastError)}`);
}

/** The base for account searches: userdn, else the domain part (dc=...) of binddn. */
function searchBase(cfg: DirectoryConfig): string {
  if (cfg.userdn) return cfg.userdn;
  const dc = cfg.binddn.split(",").map((p) => p.trim()).filter((p) => /^dc=/i.test(p));
  return dc.join(",");
}

/** The DN of a service account: a DN as given, else the one entry whose uid, cn or UPN is the name. */
async function dnOf(client: Client, cfg: DirectoryConfig, account: string): Promise<string | undefined> {
  if (account.includes("=")) {
    try {
      const { searchEntries } = await client.search(account, { scope: "base", attributes: ["dn"] });
      return searchEntries[0]?.dn;
    } catch (e) {
      if ((e as Error).constructor.name === "NoSuchObjectError") return undefined;
      throw e;
    }
  }
  const { searchEntries } = await client.search(searchBase(cfg), {
    scope: "sub",
    filter: escapeFilter`(|(uid=${account})(cn=${account})(userPrincipalName=${account}))`,
    attributes: ["dn"],
  });
  if (searchEntries.length > 1) throw new DirectoryError(`service account "${account}" matches ${searchEntries.length} directory entries; use its distinguished name`);
  return searchEntries[0]?.dn;
}

const replacePassword = (password: string) => new Change({ operation: "replace", modification: new Attribute({ type: "userPassword", values: [password] }) });

/** The backend for a reachable LDAP server: everything happens in the real directory. */
export function ldapDirectory(cfg: DirectoryConfig): Directory {
  return {
    exists: (account) => withClient(cfg, async (c) => (await dnOf(c, cfg, account)) !== undefined),
    setPassword: (account, password) =>
      withClient(cfg, async (c) => {
        const dn = await dnOf(c, cfg, account);
        if (!dn) throw new DirectoryError(`service account "${account}" does not exist in the directory`);
        await c.modify(dn, replacePassword(password));
      }),
    lastSet: async () => undefined,
    setBindPassword: (password) =>
      withClient(cfg, async (c) => {
        const dn = cfg.binddn.includes("=") ? cfg.binddn : await dnOf(c, cfg, cfg.binddn);
        if (!dn) throw new DirectoryError(`bind account "${cfg.binddn}" does not exist in the directory`);
        await c.modify(dn, replacePassword(password));
      }),
  };
}

const DEFAULT_PORT: Record<string, number> = { "ldap:": 389, "ldaps:": 636 };

/** Whether a TCP connection to `url` opens within `timeoutMs`. */
function reachable(url: string, timeoutMs: number): Promise<boolean> {
  let host: string;
  let port: number;
  try {
    const u = new URL(url);
    if (!(u.protocol in DEFAULT_PORT)) return Promise.resolve(false);
    host = u.hostname.replace(/^\[|\]$/g, "");
    port = u.port ? Number(u.port) : DEFAULT_PORT[u.protocol];
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * The backend for a config: the real directory when one of its URLs accepts a connection (tried
 * in order, as the service tries them), otherwise the built-in directory. Decided when the config
 * is written, so every later request talks to the same directory.
 */
export async function chooseBackend(urls: string, connectionTimeout: number): Promise<DirectoryConfig["backend"]> {
  // Bounded so a config write with an unroutable URL does not hang for the full 30 s default.
  const timeoutMs = Math.min(connectionTimeout, 5) * 1000;
  for (const url of splitUrls(urls)) if (await reachable(url, timeoutMs)) return "ldap";
  return "builtin";
}
