import { connect } from "node:net";
import type { SecretsContext } from "../context";
import { builtinDirectory } from "./builtin";
import { ldapDirectory } from "./ldap";
import type { DirectoryConfig } from "./state";

/** What the engine needs from a directory; one implementation per backend. */
export interface Directory {
  exists(account: string): Promise<boolean>;
  setPassword(account: string, password: string): Promise<void>;
  /** When the directory last saw the account's password set (ISO), if it records that. */
  lastSet(account: string): Promise<string | undefined>;
  /** Changes the bind account's own password (rotate-root). */
  setBindPassword(password: string): Promise<void>;
}

/** A directory failure the engine reports as 500 with the directory's message. */
export class DirectoryError extends Error {}

export function directoryFor(ctx: SecretsContext, cfg: DirectoryConfig): Directory {
  return cfg.backend === "ldap" ? ldapDirectory(cfg) : builtinDirectory(ctx);
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

export const splitUrls = (urls: string) => urls.split(",").map((u) => u.trim()).filter((u) => u !== "");
