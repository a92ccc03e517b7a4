import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SystemContext } from "../context";
import { dataReply, listReply, secretsError } from "../envelope";
import { bad, body, guarded, notFound, requiredStr, strList } from "../fields";
import { PLUGIN_TYPES, type Plugin, type PluginType } from "./state";

// Routes are relative to `sys/`, which is part of the service rather than a mount.

/**
 * Plugins the service ships with. They are listed and readable with builtin true. Registering
 * the same name adds an external plugin that takes precedence (as in the real-world catalog);
 * deleting it brings the builtin back. A builtin itself cannot be deleted.
 */
export const BUILTIN_PLUGINS: Record<PluginType, string[]> = {
  auth: ["approle", "ldap", "userpass"],
  database: ["mysql-database-plugin", "postgresql-database-plugin"],
  secret: ["keymgmt", "kv", "transform"],
};

const SHA256 = /^[0-9a-fA-F]{64}$/;
const ENV = /^[A-Za-z_][A-Za-z0-9_]*=/;

const registered = (ctx: SystemContext) => ctx.rt.store.data.secrets.plugins;

function pluginType(type: string): PluginType {
  if (!(PLUGIN_TYPES as readonly string[]).includes(type)) bad(`unknown plugin type "${type}": use one of ${PLUGIN_TYPES.join(", ")}`);
  return type as PluginType;
}

function names(ctx: SystemContext, type: PluginType): string[] {
  return [...new Set([...BUILTIN_PLUGINS[type], ...Object.keys(registered(ctx)[type])])].sort();
}

function register(ctx: SystemContext, req: Incoming): Reply {
  const type = pluginType(req.params.type);
  const b = body(req);
  const sha256 = requiredStr(b, "sha256");
  if (!SHA256.test(sha256)) bad("sha256 must be 64 hexadecimal characters (the SHA-256 of the plugin binary)");
  const command = requiredStr(b, "command");
  // The command is resolved inside the plugin directory and must not escape it.
  if (command.startsWith("/") || command.split(/[\\/]/).includes("..")) bad("command must be relative to the plugin directory: no leading / and no .. segments");
  const args = strList(b, "args") ?? [];
  const env = strList(b, "env") ?? [];
  env.forEach((e, i) => ENV.test(e) || bad(`env[${i}] must be a "KEY=value" string`));
  const name = req.params.name;
  // Hex is case-insensitive; the service stores and reports it lower-case.
  registered(ctx)[type][name] = { name, command, sha256: sha256.toLowerCase(), args, env };
  return emptyReply(204);
}

function read(ctx: SystemContext, req: Incoming): Reply {
  const type = pluginType(req.params.type);
  const name = req.params.name;
  const plugin: Plugin | undefined = registered(ctx)[type][name];
  if (plugin) return dataReply({ name, args: [...plugin.args], builtin: false, command: plugin.command, sha256: plugin.sha256 });
  if (BUILTIN_PLUGINS[type].includes(name)) return dataReply({ name, args: [], builtin: true, command: "", sha256: "" });
  return notFound();
}

function remove(ctx: SystemContext, req: Incoming): Reply {
  const type = pluginType(req.params.type);
  const name = req.params.name;
  const plugins = registered(ctx)[type];
  if (plugins[name]) delete plugins[name];
  else if (BUILTIN_PLUGINS[type].includes(name)) return secretsError(400, `plugin "${name}" is builtin and cannot be removed`);
  return emptyReply(204);
}

export const catalogEntryRoutes: Route<SystemContext>[] = [
  {
    method: "GET",
    path: "plugins/catalog",
    handler: (ctx) => dataReply(Object.fromEntries(PLUGIN_TYPES.map((type) => [type, names(ctx, type)]))),
  },
  { method: "LIST", path: "plugins/catalog/:type", handler: guarded((ctx, req) => listReply(names(ctx, pluginType(req.params.type)))) },
  { method: "POST", path: "plugins/catalog/:type/:name", handler: guarded(register), sudo: true },
  { method: "GET", path: "plugins/catalog/:type/:name", handler: guarded(read), sudo: true },
  { method: "DELETE", path: "plugins/catalog/:type/:name", handler: guarded(remove), sudo: true },
];
