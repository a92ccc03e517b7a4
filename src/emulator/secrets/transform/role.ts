import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { listReply } from "../envelope";
import { bad, strList } from "../fields";
import { globMatch, has, namedRoutes, roles, transformations, type NamedKind, type Role } from "./state";

const roleKind: NamedKind<Role> = {
  path: "role",
  write(ctx, b) {
    const list = strList(b, "transformations", true) ?? [];
    const known = transformations(ctx);
    const missing = list.filter((t) => !has(known, t));
    if (missing.length > 0) bad(...missing.map((t) => `transformation "${t}" does not exist`));
    return { transformations: [...new Set(list)] };
  },
  present: (r) => ({ transformations: r.transformations }),
};

export const roleRoutes: Route<SecretsContext>[] = [
  // The seed's `filter` glob (default `*`), given as a query parameter of the LIST.
  { method: "LIST", path: "role", handler: (ctx, req) => listReply(Object.keys(roles(ctx)).filter((n) => globMatch(req.query.get("filter") || "*", n))) },
  ...namedRoutes(roleKind),
];
