import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { bad, body, type Body, bool, guarded, readOne, str } from "../fields";
import { chooseBackend, splitUrls } from "./ldap";
import { parseDuration } from "../duration";
import { DEFAULT_LENGTH, fixedLength, MIN_LENGTH, PLACEHOLDER } from "./rotate";
import { bagOf, configOf, type DirectoryConfig } from "./state";

const TLS = ["tls10", "tls11", "tls12", "tls13"];

function duration(b: Body, key: string, fallback: number): number {
  if (b[key] === undefined || b[key] === null) return fallback;
  const seconds = parseDuration(b[key]);
  if (seconds === undefined) bad(`${key} must be integer seconds or a duration such as "90s" or "24h"`);
  return seconds;
}

function length(b: Body, fallback: number): number {
  if (b.length === undefined || b.length === null) return fallback;
  const n = typeof b.length === "string" && /^\d+$/.test(b.length) ? Number(b.length) : b.length;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) bad("length must be an integer");
  if ((n as number) < MIN_LENGTH) bad(`length must be at least ${MIN_LENGTH}`);
  return n as number;
}

/** Every parameter after defaults; on update, left-out parameters keep their values (bindpass too). */
async function write(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const b = body(req);
  const old = configOf(ctx);
  const s = (key: keyof DirectoryConfig, fallback: string) => str(b, key) ?? (old?.[key] as string | undefined) ?? fallback;
  const binddn = s("binddn", "");
  const bindpass = s("bindpass", "");
  const problems: string[] = [];
  if (binddn === "") problems.push("missing binddn");
  if (bindpass === "") problems.push("missing bindpass");

  const policyGiven = str(b, "password_policy");
  const lengthGiven = b.length !== undefined && b.length !== null;
  const formatterGiven = str(b, "formatter");
  if (policyGiven && (lengthGiven || formatterGiven)) problems.push("password_policy is mutually exclusive with length and formatter");
  const password_policy = policyGiven ?? (lengthGiven || formatterGiven ? "" : old?.password_policy ?? "");
  const formatter = formatterGiven ?? (policyGiven ? "" : old?.formatter ?? "");
  const len = password_policy ? 0 : length(b, old?.length || DEFAULT_LENGTH);
  if (formatter && formatter.split(PLACEHOLDER).length !== 2) problems.push(`formatter must contain ${PLACEHOLDER} exactly once`);
  if (formatter && fixedLength(formatter) >= len) problems.push(`length ${len} leaves no room for the password: the formatter's own text takes ${fixedLength(formatter)} characters`);

  const url = s("url", "ldap://127.0.0.1");
  for (const u of splitUrls(url)) if (!/^ldaps?:\/\/[^/\s]+\/?$/.test(u)) problems.push(`url "${u}" must be ldap://host[:port] or ldaps://host[:port]`);
  if (splitUrls(url).length === 0) problems.push("url must name at least one server");
  const tls_min_version = s("tls_min_version", "tls12");
  const tls_max_version = s("tls_max_version", "tls13");
  for (const [k, v] of [["tls_min_version", tls_min_version], ["tls_max_version", tls_max_version]]) if (!TLS.includes(v)) problems.push(`${k} must be one of ${TLS.join(", ")}`);
  const ttl = duration(b, "ttl", old?.ttl ?? 0);
  const max_ttl = duration(b, "max_ttl", old?.max_ttl ?? 0);
  if (max_ttl > 0 && ttl > max_ttl) problems.push(`ttl (${ttl}s) must not exceed max_ttl (${max_ttl}s)`);
  if (problems.length > 0) bad(...problems);

  const connection_timeout = duration(b, "connection_timeout", old?.connection_timeout ?? 30);
  const cfg: DirectoryConfig = {
    binddn,
    bindpass,
    url,
    userdn: s("userdn", ""),
    upndomain: s("upndomain", ""),
    certificate: s("certificate", ""),
    insecure_tls: bool(b, "insecure_tls") ?? old?.insecure_tls ?? false,
    starttls: bool(b, "starttls") ?? old?.starttls ?? false,
    tls_min_version,
    tls_max_version,
    ttl,
    max_ttl,
    password_policy,
    length: len,
    formatter,
    connection_timeout,
    request_timeout: duration(b, "request_timeout", old?.request_timeout ?? 90),
    last_rotation_tolerance: duration(b, "last_rotation_tolerance", old?.last_rotation_tolerance ?? 5),
    backend: await chooseBackend(url, connection_timeout),
  };
  bagOf<DirectoryConfig>(ctx, "config").config = cfg;
  return emptyReply(204);
}

/** The config without the bind password (and without the emulator's own backend choice). */
export function presentConfig(cfg: DirectoryConfig): Record<string, unknown> {
  const { bindpass: _secret, backend: _backend, ...shown } = cfg;
  return shown;
}

export const configRoutes: Route<SecretsContext>[] = [
  { method: "POST", path: "config", handler: guarded(write) },
  { method: "GET", path: "config", handler: readOne(configOf, presentConfig) },
  {
    method: "DELETE",
    path: "config",
    handler: (ctx) => {
      delete bagOf<DirectoryConfig>(ctx, "config").config;
      return emptyReply(204);
    },
  },
];
