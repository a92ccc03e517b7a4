import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";
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
  /** Names allowed in Host besides that, `localhost` and IP addresses (--allowed-host). */
  allowedHosts: ReadonlySet<string>;
}

export function sitesOf(listenHost: string, allowedHosts: readonly string[] = []): Sites {
  return { listenHost: bare(listenHost), allowedHosts: new Set(allowedHosts.map(bare)) };
}

/** An allowed-host entry is a host name: no scheme, port, path or space. */
export function checkAllowedHost(name: string): string | undefined {
  if (!/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(name)) return `allowed host ${JSON.stringify(name)} must be a host name (letters, digits, dots and dashes; no scheme or port)`;
  return undefined;
}

/**
 * An address cannot be rebound, and `localhost` resolves in the browser itself: only a name can
 * carry a page of another site here. The port is not compared: a rebound name reaches this port
 * with the emulator's own, and a port forward (ssh -L, docker -p) changes it for honest callers.
 */
export function hostRefusal(sites: Sites, headers: IncomingHttpHeaders): Reply | undefined {
  const given = header(headers, "host");
  // HTTP/1.0 tools may send none; every browser sends one.
  if (given === undefined) return undefined;
  const name = hostName(given);
  if (name === "localhost" || isIP(name) !== 0 || name === sites.listenHost || sites.allowedHosts.has(name)) return undefined;
  return jsonReply(403, { error: `host ${name} is not allowed on /_emulator (a page of another site may be behind it): start the emulator with --allowed-host ${name} (startEmulator option allowedHosts) to allow it` });
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

/** The host name of a Host header or option, lower case, without port, brackets or final dot. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") < 0 ? undefined : h.indexOf("]"));
  const colon = h.lastIndexOf(":");
  return bare(colon >= 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h);
}

function bare(host: string): string {
  return host.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
}
