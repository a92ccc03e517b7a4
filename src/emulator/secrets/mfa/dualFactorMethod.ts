import { randomUUID } from "node:crypto";
import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SystemContext } from "../context";
import { dataReply, listReply, secretsError } from "../envelope";
import { bad, body, bool, guarded, notFound, readOne, requiredStr, str } from "../fields";
import type { DualFactorMethod } from "./state";

/** This kind, whose ids the service assigns, as `PUT /_emulator/next-ids` names it (an area's assignedIds). */
export const ASSIGNED_IDS = "dualFactorMethods";

// Routes are relative to `identity/`, which is part of the service rather than a mount.

const mfa = (ctx: SystemContext) => ctx.rt.store.data.secrets.mfa;

/** Identity values a username template may name, in double curly braces. */
const PLACEHOLDER = /^identity\.entity\.(id|name|metadata\.[^\s{}]+|aliases\.[A-Za-z0-9_-]+\.(id|name|metadata\.[^\s{}]+))$/;
const HOST = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:\d{1,5})?$/;

function checkUsernameFormat(format: string): void {
  const rest = format.replace(/\{\{([^{}]*)\}\}/g, (_m, inner: string) => {
    if (!PLACEHOLDER.test(inner.trim())) bad(`username_format: unknown value {{${inner}}}; use identity.entity.name, identity.entity.id, identity.entity.metadata.<key> or identity.entity.aliases.<mount accessor>.name`);
    return "";
  });
  if (rest.includes("{{") || rest.includes("}}")) bad("username_format: unbalanced {{ }}");
}

/**
 * Every write gives the whole method (as the real-world service reads its fields): the three
 * keys are required each time, and optional fields left out return to their defaults.
 */
function save(ctx: SystemContext, b: Record<string, unknown>, given: string | undefined): Reply {
  const method: DualFactorMethod = {
    id: given ?? "",
    username_format: str(b, "username_format") ?? "",
    secret_key: requiredStr(b, "secret_key"),
    integration_key: requiredStr(b, "integration_key"),
    api_hostname: requiredStr(b, "api_hostname"),
    push_info: str(b, "push_info") ?? "",
    use_passcode: bool(b, "use_passcode") ?? false,
  };
  checkUsernameFormat(method.username_format);
  if (!HOST.test(method.api_hostname)) bad("api_hostname must be a host name (optionally :port) without scheme or path, e.g. api-1234abcd.example.com");
  // A new method's id, once the write is known to be valid (a refused one takes no id given to the emulator).
  const id = given ?? ctx.rt.nextIds.take(ASSIGNED_IDS, (taken) => mfa(ctx).dualfactor[taken] !== undefined) ?? randomUUID();
  method.id = id;
  mfa(ctx).dualfactor[id] = method;
  // The seed leaves the write response out; both spellings of the id are given.
  return dataReply({ method_id: id, id });
}

function writeCollection(ctx: SystemContext, req: Incoming): Reply {
  const b = body(req);
  const id = str(b, "id");
  if (id === undefined || id === "") return save(ctx, b, undefined);
  if (!mfa(ctx).dualfactor[id]) bad(`id: no dualfactor method with id "${id}"; leave id out to create one`);
  return save(ctx, b, id);
}

function writeById(ctx: SystemContext, req: Incoming): Reply {
  const id = req.params.id;
  if (!mfa(ctx).dualfactor[id]) return notFound();
  const b = body(req);
  const given = str(b, "id");
  if (given !== undefined && given !== "" && given !== id) bad(`id "${given}" in the body differs from the path`);
  return save(ctx, b, id);
}

function present(m: DualFactorMethod): Record<string, unknown> {
  return {
    id: m.id,
    type: "dualfactor",
    username_format: m.username_format,
    secret_key: m.secret_key,
    integration_key: m.integration_key,
    api_hostname: m.api_hostname,
    pushinfo: m.push_info,
    use_passcode: m.use_passcode,
  };
}

export const dualFactorMethodRoutes: Route<SystemContext>[] = [
  { method: "POST", path: "mfa/method/dualfactor", handler: guarded(writeCollection) },
  { method: "LIST", path: "mfa/method/dualfactor", handler: (ctx) => listReply(Object.keys(mfa(ctx).dualfactor)) },
  { method: "POST", path: "mfa/method/dualfactor/:id", handler: guarded(writeById) },
  { method: "GET", path: "mfa/method/dualfactor/:id", handler: readOne((ctx, req) => mfa(ctx).dualfactor[req.params.id], present) },
  {
    method: "DELETE",
    path: "mfa/method/dualfactor/:id",
    handler: (ctx, req) => {
      const id = req.params.id;
      const users = Object.values(mfa(ctx).loginEnforcements).filter((e) => e.methodIds.includes(id)).map((e) => `"${e.name}"`);
      if (users.length > 0) return secretsError(400, `dualfactor method ${id} is used by login enforcement ${users.join(", ")}; remove it from the enforcement first`);
      delete mfa(ctx).dualfactor[id];
      return emptyReply(204);
    },
  },
];
