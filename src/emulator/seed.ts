import { DEFAULT_ORGANIZATION, type RunState, type WorkspaceSettings } from "./runs/state";
import { isRecord, now, randomId } from "./util";
import { addConfigurationVersions, checkConfigurationVersions, readWorkspaceSettings, type SeededCv } from "./runs/run-seed";

export interface SeedResult {
  organizations: { name: string }[];
  workspaces: { id: string; name: string; organization: string }[];
  users: { id: string; username: string; email: string }[];
  configurationVersions: SeededCv[];
}

const ID = /^[A-Za-z0-9_-]+$/;

/**
 * Adds or replaces organizations, workspaces and users. Validates everything first so a bad
 * entry leaves the state untouched; returns a message naming the bad field instead.
 */
export function seed(state: RunState, input: unknown): SeedResult | string {
  if (!isRecord(input)) return "body must be a JSON object";
  const lists: Record<string, unknown[]> = {};
  for (const key of ["organizations", "workspaces", "users", "configurationVersions"]) {
    const value = input[key] ?? [];
    if (!Array.isArray(value)) return `${key} must be an array`;
    lists[key] = value;
  }
  for (const [i, org] of lists.organizations.entries()) {
    if (!isRecord(org) || typeof org.name !== "string" || !ID.test(org.name)) return `organizations[${i}].name must be a non-empty name of letters, digits, - and _`;
  }
  for (const [i, ws] of lists.workspaces.entries()) {
    if (!isRecord(ws) || typeof ws.name !== "string" || ws.name === "") return `workspaces[${i}].name is required`;
    if (ws.id !== undefined && (typeof ws.id !== "string" || !ID.test(ws.id))) return `workspaces[${i}].id must be letters, digits, - and _`;
    if (ws.organization !== undefined && (typeof ws.organization !== "string" || !ID.test(ws.organization))) return `workspaces[${i}].organization must be a name`;
    const settings = readWorkspaceSettings(ws, i);
    if (typeof settings === "string") return settings;
  }
  const workspaceIds = new Set([...Object.keys(state.workspaces), ...lists.workspaces.map((ws) => (ws as { id?: string }).id).filter((id): id is string => id !== undefined)]);
  const badCv = checkConfigurationVersions(lists.configurationVersions, workspaceIds);
  if (badCv !== undefined) return badCv;
  const usernames = new Map(Object.values(state.users).map((u) => [u.username, u.id]));
  for (const [i, user] of lists.users.entries()) {
    if (!isRecord(user) || typeof user.username !== "string" || user.username === "") return `users[${i}].username is required`;
    if (user.id !== undefined && (typeof user.id !== "string" || !ID.test(user.id))) return `users[${i}].id must be letters, digits, - and _`;
    if (user.email !== undefined && typeof user.email !== "string") return `users[${i}].email must be a string`;
    const owner = usernames.get(user.username);
    if (owner !== undefined && owner !== user.id) return `users[${i}].username ${user.username} is taken by ${owner}`;
  }

  const at = now();
  const result: SeedResult = { organizations: [], workspaces: [], users: [], configurationVersions: [] };
  const ensureOrg = (name: string) => {
    state.organizations[name] ??= { name, createdAt: at };
    if (!result.organizations.some((o) => o.name === name)) result.organizations.push({ name });
  };
  for (const org of lists.organizations as { name: string }[]) ensureOrg(org.name);
  for (const [i, ws] of (lists.workspaces as { id?: string; name: string; organization?: string }[]).entries()) {
    const organization = ws.organization ?? DEFAULT_ORGANIZATION;
    if (!state.organizations[organization]) ensureOrg(organization);
    const id = ws.id ?? randomId("ws");
    // Validated above, so this is never the error message.
    const settings = readWorkspaceSettings(ws, i) as WorkspaceSettings;
    state.workspaces[id] = { id, name: ws.name, organization, createdAt: state.workspaces[id]?.createdAt ?? at, settings };
    result.workspaces.push({ id, name: ws.name, organization });
  }
  for (const user of lists.users as { id?: string; username: string; email?: string }[]) {
    const id = user.id ?? randomId("usr");
    const entry = { id, username: user.username, email: user.email ?? `${user.username}@example.com` };
    state.users[id] = entry;
    result.users.push(entry);
  }
  result.configurationVersions = addConfigurationVersions(state, lists.configurationVersions as Record<string, unknown>[]);
  return result;
}
