import { createHash } from "node:crypto";
import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import { randomHex } from "../../util";
import type { SecretsContext } from "../context";
import { dataReply } from "../envelope";
import { bad, body, guarded, notFound, str, strList } from "../fields";
import { ALL_PURPOSES, familyOf, PROTECTIONS, PROVIDERS, PURPOSES } from "./material";
import { distributions, keys, providers, type Distribution, type Key } from "./state";

function versionIds(d: Distribution, key: Key): Record<string, string> {
  const out: Record<string, string> = {};
  for (const version of Object.keys(key.versions)) out[version] = createHash("sha256").update(`${d.salt}:${version}`).digest("hex").slice(0, 32);
  return out;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

function distribute(ctx: SecretsContext, req: Incoming): Reply {
  const b = body(req);
  const { name: kmsName, key_name: keyName } = req.params;
  const purpose = [...new Set(strList(b, "purpose", true) ?? [])];
  if (purpose.length === 0) bad("missing purpose: give at least one of " + ALL_PURPOSES.join(", "));
  for (const p of purpose) if (!ALL_PURPOSES.includes(p)) bad(`purpose "${p}" is not one of ${ALL_PURPOSES.join(", ")}`);
  const protection = str(b, "protection") ?? "hsm";
  if (!PROTECTIONS.includes(protection)) bad(`protection must be one of ${PROTECTIONS.join(", ")}`);

  const kms = providers(ctx)[kmsName];
  if (!kms) bad(`KMS provider "${kmsName}" does not exist`);
  const key = keys(ctx)[keyName];
  if (!key) bad(`key "${keyName}" does not exist`);

  const current = distributions(ctx)[keyName];
  if (current && current.kms !== kmsName) {
    bad(`key "${keyName}" is already distributed to KMS provider "${current.kms}"; a key can be in one provider at a time: remove it with DELETE kms/${current.kms}/key/${keyName} first`);
  }
  if (current) {
    // Parameters are fixed once distributed; repeating them is a no-op so retries are safe.
    if (!sameSet(purpose, current.purpose)) bad(`purpose is immutable once distributed (currently "${current.purpose.join(",")}"); remove the key from the provider and distribute it again`);
    if (protection !== current.protection) bad(`protection is immutable once distributed (currently "${current.protection}"); remove the key from the provider and distribute it again`);
    return emptyReply(204);
  }
  const usable = PURPOSES[familyOf(key.type)];
  for (const p of purpose) if (!usable.includes(p)) bad(`purpose "${p}" is not possible with a ${key.type} key; use ${usable.join(", ")}`);
  if (!PROVIDERS[kms.provider].keyTypes.includes(key.type)) bad(`${kms.provider} cannot hold ${key.type} keys; it takes ${PROVIDERS[kms.provider].keyTypes.join(", ")}`);

  distributions(ctx)[keyName] = { kms: kmsName, name: `${keyName}-${Math.floor(Date.now() / 1000)}`, protection, purpose, salt: randomHex(8) };
  return emptyReply(204);
}

/** The distribution of `key_name` in provider `name`, if that is where the key is. */
function inProvider(ctx: SecretsContext, params: Record<string, string>): Distribution | undefined {
  const d = distributions(ctx)[params.key_name];
  return d && d.kms === params.name ? d : undefined;
}

export const keyDistributionRoutes: Route<SecretsContext>[] = [
  { method: "POST", path: "kms/:name/key/:key_name", handler: guarded(distribute) },
  {
    method: "GET",
    path: "kms/:name/key/:key_name",
    handler: (ctx, req) => {
      const d = inProvider(ctx, req.params);
      const key = keys(ctx)[req.params.key_name];
      if (!d || !key) return notFound();
      return dataReply({ name: d.name, protection: d.protection, purpose: d.purpose.join(","), versions: versionIds(d, key) });
    },
  },
  {
    method: "DELETE",
    path: "kms/:name/key/:key_name",
    handler: (ctx, req) => {
      // The key itself stays in the engine and may be distributed again.
      if (inProvider(ctx, req.params)) delete distributions(ctx)[req.params.key_name];
      return emptyReply(204);
    },
  },
];
