/** Tokenization key versions: rotate, config (min_decryption_version), trim, read, list. */
import { emptyReply, parseJson, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { dataReply, listReply, secretsError } from "../envelope";
import { bad, body, count, guarded, notFound, type Body } from "../fields";
import { isRecord } from "../../util";
import { backendFor } from "./backend";
import { StoreUnavailable } from "./sql";
import { has, transformations } from "./state";
import { rotate, type KeyRing, type TokenBackend } from "./tokens";

type Action = (ring: KeyRing, b: Body, name: string) => Reply | undefined;

function keyRoute(method: string, path: string, action: Action): Route<SecretsContext> {
  return {
    method,
    path,
    handler: guarded(async (ctx: SecretsContext, req: Incoming) => {
      const name = req.params.transform_name;
      const all = transformations(ctx);
      if (!has(all, name)) return notFound();
      if (all[name].type !== "tokenization") bad(`transformation "${name}" is ${all[name].type}; keys exist for tokenization only`);
      let b: Body = {};
      if (method === "POST") {
        // A sample of the seed wraps the config in a one-element array; both forms are taken.
        const raw = parseJson(req.body);
        b = raw.ok && Array.isArray(raw.value) && raw.value.length === 1 && isRecord(raw.value[0]) ? raw.value[0] : body(req);
      }
      let backend: TokenBackend;
      try {
        backend = backendFor(ctx, name, all[name]);
        const ring = await backend.ring();
        if (!ring) bad(`the keys of transformation "${name}" are missing from its store`);
        const reply = action(ring!, b, name);
        if (reply) return reply;
        await backend.saveRing(ring!);
        return emptyReply(204);
      } catch (e) {
        if (e instanceof StoreUnavailable) return secretsError(500, e.message);
        throw e;
      }
    }),
  };
}

const presentRing = (ring: KeyRing, name: string) => ({
  latest_version: ring.latest_version,
  min_available_version: ring.min_available_version,
  min_decryption_version: ring.min_decryption_version,
  name,
});

export const tokenizationKeyConfigRoutes: Route<SecretsContext>[] = [
  {
    method: "LIST",
    path: "tokenization/keys",
    handler: (ctx) => listReply(Object.entries(transformations(ctx)).filter(([, t]) => t.type === "tokenization").map(([n]) => n)),
  },
  keyRoute("GET", "tokenization/keys/:transform_name", (ring, _b, name) => dataReply(presentRing(ring, name))),
  keyRoute("POST", "tokenization/keys/:transform_name/rotate", (ring) => void rotate(ring)),
  keyRoute("POST", "tokenization/keys/:transform_name/config", (ring, b) => {
    const min = count(b, "min_decryption_version");
    if (min === undefined) return undefined;
    const floor = Math.max(1, ring.min_available_version);
    if (min < floor || min > ring.latest_version) {
      bad(`min_decryption_version must be between ${floor} (the oldest available version) and ${ring.latest_version} (latest_version), not ${min}`);
    }
    ring.min_decryption_version = min;
    return undefined;
  }),
  keyRoute("POST", "tokenization/keys/:transform_name/trim", (ring, b) => {
    const min = count(b, "min_available_version");
    if (min === undefined) bad("missing min_available_version");
    if (min! < 1) bad("min_available_version must be at least 1");
    if (min! > ring.min_decryption_version) {
      bad(`min_available_version ${min} is above min_decryption_version ${ring.min_decryption_version}: versions still allowed to decode cannot be trimmed; raise min_decryption_version first`);
    }
    if (min! > ring.latest_version) bad(`min_available_version ${min} is above latest_version ${ring.latest_version}`);
    for (const v of Object.keys(ring.versions)) if (Number(v) < min!) delete ring.versions[v];
    ring.min_available_version = Math.max(ring.min_available_version, min!);
    return undefined;
  }),
];
