import type { Emulator, EmulatorTokens } from "../../src/emulator";
import { bearer } from "./helpers";
import { controlResponse } from "../support/emulator";
import { call, type Response } from "../support/http";

/** Raw-HTTP shorthands for the run endpoints and their control endpoints; each test still sees every status. */
export type Who = keyof Pick<EmulatorTokens, "runAdmin" | "runMember" | "runTeam" | "runOrganization">;

export interface CreateOptions {
  who?: Who;
  workspaceId?: string;
  configurationVersionId?: string;
}

export function runsApi(emu: Emulator) {
  const headers = (who: Who = "runAdmin") => bearer(emu.tokens[who]);
  const api = {
    headers,
    document(attributes: Record<string, unknown> = {}, options: CreateOptions = {}) {
      const relationships: Record<string, unknown> = { workspace: { data: { type: "workspaces", id: options.workspaceId ?? emu.workspaceId } } };
      if (options.configurationVersionId) relationships["configuration-version"] = { data: { type: "configuration-versions", id: options.configurationVersionId } };
      return { data: { type: "runs", attributes, relationships } };
    },
    create(attributes: Record<string, unknown> = {}, options: CreateOptions = {}): Promise<Response> {
      return call("POST", `${emu.runUrl}/runs`, { headers: headers(options.who), body: api.document(attributes, options) });
    },
    /** Creates a run and returns its id, failing loudly when the create is refused. */
    async createId(attributes: Record<string, unknown> = {}, options: CreateOptions = {}): Promise<string> {
      const res = await api.create(attributes, options);
      if (res.status !== 201) throw new Error(`create run: ${res.status} ${res.text}`);
      return res.json.data.id as string;
    },
    get(id: string, who: Who = "runAdmin", query = ""): Promise<Response> {
      return call("GET", `${emu.runUrl}/runs/${id}${query}`, { headers: headers(who) });
    },
    async status(id: string): Promise<string> {
      const res = await api.get(id);
      return res.json.data.attributes.status as string;
    },
    action(id: string, name: string, who: Who = "runAdmin", body?: unknown): Promise<Response> {
      return call("POST", `${emu.runUrl}/runs/${id}/actions/${name}`, { headers: headers(who), body });
    },
    list(query = "", who: Who = "runAdmin", workspaceId = emu.workspaceId): Promise<Response> {
      return call("GET", `${emu.runUrl}/workspaces/${workspaceId}/runs${query}`, { headers: headers(who) });
    },
    advance(id: string, to?: string): Promise<Response> {
      return controlResponse(emu, "POST", `/runs/${id}/advance`, to === undefined ? {} : { to });
    },
    /** Advances to `to`, failing loudly when the emulator refuses. */
    async advanceTo(id: string, to: string): Promise<void> {
      const res = await api.advance(id, to);
      if (res.status !== 200) throw new Error(`advance ${id} to ${to}: ${res.status} ${res.text}`);
    },
    outcome(id: string, body: Record<string, unknown>): Promise<Response> {
      return controlResponse(emu, "POST", `/runs/${id}/outcome`, body);
    },
    seed(body: Record<string, unknown>): Promise<Response> {
      return controlResponse(emu, "POST", "/seed", body);
    },
    bulk(body: Record<string, unknown>): Promise<Response> {
      return controlResponse(emu, "POST", "/runs", body);
    },
    settings(body: Record<string, unknown>): Promise<Response> {
      return controlResponse(emu, "PUT", "/settings", body);
    },
  };
  return api;
}
