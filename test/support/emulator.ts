import { afterAll, beforeAll, beforeEach } from "vitest";
import { request } from "undici";
import { startEmulator, type Emulator } from "../../src/emulator";

/**
 * One emulator per test file on 127.0.0.1:0, reset before each test. The provider reads its
 * settings from the environment, as it does in the host when no stack config is given.
 */
export function useEmulator(opts: { secretsToken?: "secretsRoot" | "secretsUser" } = {}): { emu: () => Emulator } {
  let emu: Emulator | undefined;
  beforeAll(async () => {
    emu = await startEmulator();
    process.env.SVC_RUN_URL = emu.runUrl;
    process.env.SVC_RUN_TOKEN = emu.tokens.runAdmin;
    process.env.SVC_SECRETS_URL = emu.secretsUrl;
    process.env.SVC_SECRETS_TOKEN = emu.tokens[opts.secretsToken ?? "secretsUser"];
    process.env.SVC_MAX_RETRIES = "3";
  });
  beforeEach(async () => {
    await control(emu!, "POST", "/reset");
  });
  afterAll(async () => {
    await emu?.close();
  });
  return { emu: () => emu! };
}

export async function control<T = unknown>(emu: Emulator, method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown): Promise<T> {
  const res = await request(`${emu.controlUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`control ${method} ${path}: ${res.statusCode} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export interface LoggedRequest { method: string; path: string; status: number }

export async function requests(emu: Emulator): Promise<LoggedRequest[]> {
  return (await control<{ requests: LoggedRequest[] }>(emu, "GET", "/requests")).requests;
}
