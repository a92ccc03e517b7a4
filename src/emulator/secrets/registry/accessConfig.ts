import { createPrivateKey, X509Certificate } from "node:crypto";
import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { bad, body, guarded, readOne, requiredStr, str } from "../fields";
import { accessBag as bag, accessOf, digest, lookup } from "./state";

const ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

function pemProblem(key: string, value: string, parse: (pem: string) => unknown, what = "x509 PEM"): string | undefined {
  if (value === "") return undefined;
  try {
    parse(value);
    return undefined;
  } catch {
    return `${key} must be ${what}`;
  }
}

function write(ctx: SecretsContext, req: Incoming): Reply {
  const b = body(req);
  const problems: string[] = [];
  const address = str(b, "address") ?? "";
  const m = ADDRESS.exec(address);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) problems.push(`address must be host:port, got "${address}"`);
  const scheme = str(b, "scheme") || "http";
  if (scheme !== "http" && scheme !== "https") problems.push("scheme must be http or https");
  const token = requiredStr(b, "token");
  const known = lookup(ctx.rt.store.data.secrets.mounts, token);
  if (!known) problems.push("token is not a registry ACL token known to the registry");
  else if (known.type !== "management") problems.push(`token must be a management-type registry ACL token; this one is a ${known.type} token`);
  const ca_cert = str(b, "ca_cert") ?? "";
  const client_cert = str(b, "client_cert") ?? "";
  const client_key = str(b, "client_key") ?? "";
  if ((client_cert === "") !== (client_key === "")) problems.push("client_cert and client_key must be given together");
  for (const p of [
    pemProblem("ca_cert", ca_cert, (v) => new X509Certificate(v)),
    pemProblem("client_cert", client_cert, (v) => new X509Certificate(v)),
    pemProblem("client_key", client_key, (v) => createPrivateKey(v), "a PEM private key"),
  ]) if (p) problems.push(p);
  if (problems.length > 0) bad(...problems);
  bag(ctx).access = { address, scheme, token_digest: digest(token), ca_cert, client_cert, client_key_digest: client_key && digest(client_key) };
  return emptyReply(204);
}

export const accessConfigRoutes: Route<SecretsContext>[] = [
  { method: "POST", path: "config/access", handler: guarded(write) },
  // The token and the client key are never returned.
  { method: "GET", path: "config/access", handler: readOne(accessOf, (a) => ({ address: a.address, scheme: a.scheme, ca_cert: a.ca_cert, client_cert: a.client_cert })) },
  {
    method: "DELETE",
    path: "config/access",
    handler: (ctx) => {
      delete bag(ctx).access;
      return emptyReply(204);
    },
  },
];
