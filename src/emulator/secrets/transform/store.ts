import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { bad, count, str, strList, type Body } from "../fields";
import { forgetStore, probe, rememberCredentials } from "./sql";
import { durationSeconds, lookup, namedRoutes, transformations, type NamedKind, type Store } from "./state";

const INTERNAL: Store = {
  type: "internal", driver: "internal", supported_transformations: ["tokenization"], connection_string: "", schema: "",
  max_open_connections: 0, max_idle_connections: 0, max_connection_lifetime: 0,
};

/** Slots the service fills in; anything else in double braces is a mistake worth reporting. */
function checkConnectionString(driver: string, cs: string): string[] {
  const problems: string[] = [];
  for (const slot of cs.match(/\{\{[^}]*\}\}/g) ?? []) {
    if (slot !== "{{username}}" && slot !== "{{password}}") problems.push(`connection_string has an unknown slot ${slot}; only {{username}} and {{password}} are filled in`);
  }
  if (!cs.includes("{{username}}") || !cs.includes("{{password}}")) {
    problems.push("connection_string must contain the {{username}} and {{password}} slots, e.g. postgresql://{{username}}:{{password}}@127.0.0.1:5432/tokens");
  }
  if (driver === "postgres" && !/^postgres(ql)?:\/\//.test(cs)) problems.push("connection_string of a postgres store must be a URL starting with postgresql://");
  if (driver === "mysql" && !/[?&]parseTime=true(&|$)/.test(cs)) problems.push("connection_string of a mysql store must carry the parseTime=true option, e.g. {{username}}:{{password}}@tcp(127.0.0.1:3306)/tokens?parseTime=true");
  return problems;
}

async function write(ctx: SecretsContext, b: Body, name: string): Promise<Store> {
  const problems: string[] = [];
  const type = str(b, "type");
  if (type !== "sql") problems.push(type === undefined ? "missing type (only sql)" : `type must be "sql", not ${JSON.stringify(type)}`);
  const driver = str(b, "driver");
  if (driver !== "postgres" && driver !== "mysql") problems.push(driver === undefined ? "missing driver (postgres or mysql)" : `driver must be postgres or mysql, not ${JSON.stringify(driver)}`);
  const supported = strList(b, "supported_transformations", true) ?? ["tokenization"];
  for (const s of supported) if (s !== "tokenization") problems.push(`supported_transformations: only tokenization can use a store, not ${JSON.stringify(s)}`);
  const cs = str(b, "connection_string") ?? "";
  if (cs === "") problems.push("missing connection_string");
  else if (driver) problems.push(...checkConnectionString(driver, cs));
  const username = str(b, "username") ?? "";
  const password = str(b, "password") ?? "";
  if (username === "") problems.push("missing username");
  if (password === "") problems.push("missing password");
  const schema = str(b, "schema") ?? "public";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) problems.push("schema must be a plain identifier (letters, digits, underscore)");
  const limits = {
    max_open_connections: count(b, "max_open_connections") ?? 4,
    max_idle_connections: count(b, "max_idle_connections") ?? 4,
    max_connection_lifetime: durationSeconds(b.max_connection_lifetime, "max_connection_lifetime"),
  };
  if (limits.max_open_connections < 1) problems.push("max_open_connections must be at least 1");
  if (problems.length > 0) bad(...problems);
  const store: Store = { type: "sql", driver: driver as Store["driver"], supported_transformations: supported, connection_string: cs, schema, ...limits };
  if (store.driver === "postgres") {
    // The service connects before it accepts the store; the database's reason is the answer.
    const reason = await probe(store, { username, password });
    if (reason) bad(`cannot connect to the database of store "${name}": ${reason}`);
  }
  forgetStore(ctx, name);
  rememberCredentials(ctx, name, { username, password });
  return store;
}

export const storeKind: NamedKind<Store> = {
  path: "stores",
  builtins: { "builtin/internal": INTERNAL },
  write: (ctx, b, name) => write(ctx, b, name),
  // Reads never show the credentials.
  present: (s) => ({
    type: s.type, driver: s.driver, connection_string: s.connection_string, supported_transformations: s.supported_transformations,
    schema: s.schema, max_open_connections: s.max_open_connections, max_idle_connections: s.max_idle_connections,
    max_connection_lifetime: s.max_connection_lifetime,
  }),
  inUse(ctx, name) {
    const users = Object.entries(transformations(ctx)).filter(([, t]) => t.stores.includes(name)).map(([n]) => n);
    return users.map((t) => `store "${name}" is used by tokenization transformation "${t}"; delete the transformation first (its stores cannot change)`);
  },
  removed: (ctx, name) => forgetStore(ctx, name),
};

export const storeOf = (ctx: SecretsContext, name: string): Store | undefined => lookup(ctx, storeKind, name);

export const storeRoutes: Route<SecretsContext>[] = namedRoutes(storeKind);
