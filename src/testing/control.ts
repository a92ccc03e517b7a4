/** A control request to an emulator (`/_emulator/...`), as testStack's `control` and its seed send them. */
import type { Emulator } from "../emulator";

/** Sends `method path` with `body` as JSON; its JSON answer, or a throw with the emulator's message when it refuses. */
export async function control<T = unknown>(emu: Emulator, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (emu.controlToken) headers["x-emulator-control-token"] = emu.controlToken;
  const res = await fetch(`${emu.controlUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`emulator control ${method} ${path}: ${res.status} ${text.trim()}`);
  return (text ? JSON.parse(text) : undefined) as T;
}
