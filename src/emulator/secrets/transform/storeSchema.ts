import { emptyReply, type Incoming } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { bad, body, guarded, notFound, str } from "../fields";
import { createSchema, credentialsOf } from "./sql";
import { table, type Store } from "./state";

/**
 * A store's schema: `stores/:name/schema` creates the tables a tokenization transformation keeps in
 * a postgres store, with credentials given for this call only (a mysql store is kept in memory).
 */
async function schemaWrite(ctx: SecretsContext, req: Incoming) {
  const b = body(req);
  const name = req.params.name;
  const store = table<Store>(ctx, "stores")[name];
  if (!store) return notFound();
  const problems: string[] = [];
  const transformationType = str(b, "transformation_type") ?? "tokenization";
  if (transformationType !== "tokenization") problems.push(`transformation_type must be tokenization, not ${JSON.stringify(transformationType)}`);
  const creds = { username: str(b, "username") ?? "", password: str(b, "password") ?? "" };
  if (creds.username === "") problems.push("missing username");
  if (creds.password === "") problems.push("missing password");
  if (problems.length > 0) bad(...problems);
  if (store.driver === "postgres") {
    // Used for this call only, never kept.
    const reason = await createSchema(store, creds, credentialsOf(ctx, name)?.username);
    if (reason) bad(`cannot create the schema of store "${name}": ${reason}`);
  }
  return emptyReply(204);
}

export const storeSchemaRoutes: Route<SecretsContext>[] = [{ method: "POST", path: "stores/:name/schema", handler: guarded(schemaWrite) }];
