import type { IncomingHttpHeaders } from "node:http";
import { header, jsonReply, type Reply } from "./http";

/**
 * Which requests the control endpoints and the page answer. The caller kept out is a web page of
 * another site in the developer's browser: it reads through DNS rebinding (its own name resolving
 * to 127.0.0.1, so the request's Host is that name), and it writes without a preflight (a no-cors
 * fetch or a form: a foreign Origin, a body that is not JSON). Tools on the machine send neither.
 */
export interface Sites {
  /** The address or name the emulator listens on (EmulatorOptions.host). */
  listenHost: string;
  /** Names allowed in Host besides that and the loopback names, with any port (--allowed-host). */
  allowedHosts: ReadonlySet<string>;
  /** The port this cluster listens on, known once it listens. */
  port: number;
}

export function sitesOf(listenHost: string, allowedHosts: readonly string[] = [], port = 0): Sites {
  return { listenHost: bare(listenHost), allowedHosts: new Set(allowedHosts.map(bare)), port };
}

/** An allowed-host entry is a host name: no scheme, port, path or space. */
export function checkAllowedHost(name: string): string | undefined {
  if (!/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(name)) return `allowed host ${JSON.stringify(name)} must be a host name (letters, digits, dots and dashes; no scheme or port)`;
  return undefined;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1"]);

/**
 * The emulator's own names are the address it listens on and the loopback names, each with the
 * port the request came in on; a name the user allows (a proxy's, a container's, a port forward's)
 * is taken with any port. Anything else may be a name of another site that resolves here (DNS
 * rebinding), carrying a page that reads what it gets.
 */
export function hostRefusal(sites: Sites, headers: IncomingHttpHeaders): Reply | undefined {
  const given = header(headers, "host");
  // HTTP/1.0 tools may send none; every browser sends one.
  if (given === undefined) return undefined;
  const { name, port } = hostAndPort(given);
  if (sites.allowedHosts.has(name)) return undefined;
  const own = LOOPBACK_NAMES.has(name) || name === sites.listenHost;
  if (own && port === sites.port) return undefined;
  const what = own ? `host ${name}:${port}` : `host ${name}`;
  return jsonReply(403, { error: `${what} is not allowed on /_emulator (a page of another site may be behind it): start the emulator with --allowed-host ${name} (startEmulator option allowedHosts) to allow it` });
}

/**
 * A request that changes state is refused when a page of another origin sent it, and when its body
 * is not JSON: a page can send text/plain, form and multipart bodies to any site without asking.
 */
export function writeRefusal(headers: IncomingHttpHeaders, body: Buffer): Reply | undefined {
  const origin = header(headers, "origin");
  const host = header(headers, "host");
  // Browsers send "null" for opaque origins (sandboxed frames, file:, some redirects): never ours.
  if (origin !== undefined && (host === undefined || origin.toLowerCase() !== `http://${host.toLowerCase()}`)) {
    return jsonReply(403, { error: `origin ${origin} may not change the emulator: control requests that change state come from its own page or from tools that send no Origin` });
  }
  if (body.length === 0) return undefined;
  const type = (header(headers, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/json") return undefined;
  return jsonReply(415, { error: `control requests with a body must send content-type: application/json (got ${type === "" ? "none" : type})` });
}

/** A Host header's name (lower case, without brackets or final dot) and port (80 when absent). */
function hostAndPort(host: string): { name: string; port: number } {
  const h = host.trim().toLowerCase();
  const close = h.startsWith("[") ? h.indexOf("]") : -1;
  const colon = close >= 0 ? (h[close + 1] === ":" ? close + 1 : -1) : h.indexOf(":") === h.lastIndexOf(":") ? h.lastIndexOf(":") : -1;
  const name = close >= 0 ? h.slice(1, close) : bare(colon >= 0 ? h.slice(0, colon) : h);
  const port = colon >= 0 ? Number(h.slice(colon + 1)) : 80;
  return { name, port: Number.isInteger(port) ? port : -1 };
}

function bare(host: string): string {
  return host.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
}
