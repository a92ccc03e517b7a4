import { dict, hasOwn } from "../../util";
import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { listReply, secretsError } from "../envelope";
import { bad, body, guarded, readOne, str, strMap } from "../fields";
import { PROVIDERS } from "./material";
import { keysHeldBy, providers } from "./state";

/** Creates the provider, or updates it when it exists; left-out fields keep their values. */
function write(ctx: SecretsContext, req: Incoming): Reply {
  const b = body(req);
  const name = req.params.name;
  const provider = str(b, "provider");
  const keyCollection = str(b, "key_collection");
  const credentials = strMap(b, "credentials", true);
  if (provider !== undefined && !hasOwn(PROVIDERS, provider)) bad(`provider must be one of ${Object.keys(PROVIDERS).join(", ")}`);
  if (keyCollection === "") bad("key_collection must not be empty");

  const existing = providers(ctx)[name];
  if (existing) {
    if (provider !== undefined && provider !== existing.provider) bad(`provider is immutable: "${name}" uses ${existing.provider}; create another KMS provider for ${provider}`);
    if (keyCollection !== undefined && keyCollection !== existing.key_collection) {
      bad(`key_collection is immutable: "${name}" uses "${existing.key_collection}"; create another KMS provider for "${keyCollection}"`);
    }
  } else {
    if (provider === undefined) bad("missing provider");
    if (keyCollection === undefined) bad("missing key_collection");
  }
  const kind = existing?.provider ?? (provider as string);
  const allowed = PROVIDERS[kind].credentials;
  for (const credential of Object.keys(credentials ?? {})) {
    if (!allowed.includes(credential)) bad(`credentials.${credential} is not a ${kind} credential; use ${allowed.join(", ")}`);
  }
  providers(ctx)[name] = {
    provider: kind,
    key_collection: existing?.key_collection ?? (keyCollection as string),
    credentials: credentials ?? existing?.credentials ?? dict<string>(),
  };
  return emptyReply(204);
}

export const kmsProviderRoutes: Route<SecretsContext>[] = [
  { method: "POST", path: "kms/:name", handler: guarded(write) },
  { method: "GET", path: "kms/:name", handler: readOne((ctx, req) => providers(ctx)[req.params.name], (kms) => ({ key_collection: kms.key_collection, provider: kms.provider })) },
  { method: "LIST", path: "kms", handler: (ctx) => listReply(Object.keys(providers(ctx))) },
  {
    method: "DELETE",
    path: "kms/:name",
    handler: (ctx, req) => {
      const name = req.params.name;
      const held = keysHeldBy(ctx, name);
      if (held.length > 0) {
        const list = held.map((k) => `"${k}"`).join(", ");
        return secretsError(400, `KMS provider "${name}" still holds keys ${list}; remove each with DELETE kms/${name}/key/<key_name> first`);
      }
      delete providers(ctx)[name];
      return emptyReply(204);
    },
  },
  { method: "LIST", path: "kms/:name/key", handler: (ctx, req) => listReply(keysHeldBy(ctx, req.params.name)) },
];
