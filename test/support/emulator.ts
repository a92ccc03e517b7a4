import { afterAll, beforeAll, beforeEach } from "vitest";
import { request, type Dispatcher } from "undici";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator";
import { useEnv } from "./env";
import { call, type Response } from "./http";
import { mustStatus } from "./must";

/**
 * One emulator per test file (or describe block) on 127.0.0.1:0, every secrets cluster of it reset
 * before each test (unless `reset: false`, for files that seed once and only read, or whose tests
 * build on each other), so tests share the process but not the state. The provider reads its
 * settings from the environment, as it does in the host when no stack config is given, so the
 * environment points at this emulator (`secretsToken` picks the secrets token it carries) and is
 * put back after the file; `env: false` leaves it alone, for a file whose programs and resources
 * name the emulator themselves (stack config, connections). `emu` is filled in by beforeAll, so a
 * file can keep it in a const and build its helpers on it up front. The one way a file starts its
 * emulator: a test that starts its own (a restart on a state file, options of its own) says why.
 */
export function useEmulator({ reset = true, secretsToken = "secretsUser", env = true, ...options }: EmulatorOptions & {
  reset?: boolean;
  secretsToken?: "secretsRoot" | "secretsUser";
  env?: boolean;
} = {}): { emu: Emulator } {
  const emu = {} as Emulator;
  beforeAll(async () => {
    Object.assign(emu, await startEmulator(options));
  });
  // close is missing when the start itself failed; that failure is the one to report.
  afterAll(() => emu.close?.());
  if (env) {
    useEnv(() => ({
      SVC_RUN_URL: emu.runUrl, SVC_RUN_TOKEN: emu.tokens.runAdmin,
      SVC_SECRETS_URL: emu.secretsUrl, SVC_SECRETS_TOKEN: emu.tokens[secretsToken],
      SVC_MAX_RETRIES: "3",
    }));
  }
  if (reset) {
    beforeEach(async () => {
      // A check, not an assertion (must.ts): shared setup must not count for the tests.
      for (const c of emu.clusters) mustStatus((await controlResponse(c, "POST", "/reset")).status, 204, "POST /_emulator/reset");
    });
  }
  return { emu };
}

/**
 * A raw request; a read or delete whose pooled connection the server closed as it was reused (the
 * keep-alive race, seen under load after a long engine run) is sent once more on a new one.
 */
async function send(url: string, opts: { method: string; headers: Record<string, string>; body?: string }): Promise<Dispatcher.ResponseData<unknown>> {
  try {
    return await request(url, opts as Parameters<typeof request>[1]);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ECONNRESET" || !["GET", "LIST", "DELETE"].includes(opts.method)) throw e;
    return request(url, opts as Parameters<typeof request>[1]);
  }
}

/**
 * A control request (`/_emulator`, no token) that the test needs to succeed, to set something up or
 * read the emulator's logs: its JSON answer, or an error naming the status. `emu` may be one
 * cluster of a multi-cluster emulator.
 */
export async function control<T = unknown>(emu: Pick<Emulator, "controlUrl">, method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown): Promise<T> {
  const res = await send(`${emu.controlUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`control ${method} ${path}: ${res.statusCode} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * A control request as the emulator answers it, whatever the status, for the tests of the control
 * endpoints themselves; on a fresh connection, as every raw request of the emulator's wire tests.
 */
export function controlResponse(emu: Pick<Emulator, "controlUrl">, method: string, path: string, body?: unknown): Promise<Response> {
  return call(method, `${emu.controlUrl}${path}`, { body });
}

export interface LoggedRequest { method: string; path: string; status: number }

export async function requests(emu: Pick<Emulator, "controlUrl">): Promise<LoggedRequest[]> {
  return (await control<{ requests: LoggedRequest[] }>(emu, "GET", "/requests")).requests;
}

/** A raw request to the run service (no provider code involved). */
export async function runApi(emu: Emulator, method: "GET" | "POST" | "DELETE", path: string, body?: unknown, token = emu.tokens.runAdmin): Promise<{ status: number; body: any }> {
  const res = await send(`${emu.runUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/vnd.api+json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return parsed(res);
}

/**
 * A raw request to the secrets service with the root token, to see what it stores without provider
 * code; `emu` may be one cluster of a multi-cluster emulator.
 */
export async function secretsApi(emu: Pick<Emulator, "secretsUrl"> & { tokens: Pick<Emulator["tokens"], "secretsRoot"> }, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await send(`${emu.secretsUrl}${path}`, {
    method, // the secrets service also answers LIST
    headers: { "x-svc-token": emu.tokens.secretsRoot, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return parsed(res);
}

async function parsed(res: Dispatcher.ResponseData<unknown>): Promise<{ status: number; body: any }> {
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

/** Runs `fn` with SVC_SECRETS_TOKEN set to `token`, then puts back what was there (or nothing). */
export async function withEnvSecretsToken<T>(token: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.SVC_SECRETS_TOKEN;
  process.env.SVC_SECRETS_TOKEN = token;
  try {
    return await fn();
  } finally {
    // Assigning undefined would leave the string "undefined" behind.
    if (saved === undefined) delete process.env.SVC_SECRETS_TOKEN;
    else process.env.SVC_SECRETS_TOKEN = saved;
  }
}
