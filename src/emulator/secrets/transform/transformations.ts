import { randomBytes } from "node:crypto";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { bad, str, strList, type Body } from "../fields";
import { backendFor, dropTokens } from "./backend";
import { durationSeconds, namedRoutes, roles, type NamedKind, type Transformation, type TransformationType } from "./state";
import { storeOf } from "./store";
import { templateOf } from "./template";
import { newRing } from "./tokens";

export const TYPES: TransformationType[] = ["fpe", "masking", "tokenization"];
const TWEAK_SOURCES = ["supplied", "generated", "internal"];
const MAPPING_MODES = ["default", "exportable"];

function oneOf(b: Body, key: string, allowed: string[], fallback: string): string {
  const value = str(b, key) ?? fallback;
  if (!allowed.includes(value)) bad(`${key} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`);
  return value;
}

/** Shared by the typed endpoints and the deprecated generic one. */
async function write(ctx: SecretsContext, b: Body, name: string, previous: Transformation | undefined, type: TransformationType, generic: boolean): Promise<Transformation> {
  if (previous && previous.type !== type) {
    bad(`type is immutable: transformation "${name}" is ${previous.type}; delete it first or choose another name for a ${type} transformation`);
  }
  const problems: string[] = [];
  const t: Transformation = {
    type,
    template: "",
    tweak_source: "",
    masking_character: "",
    allowed_roles: strList(b, "allowed_roles", true) ?? [],
    mapping_mode: "",
    max_ttl: 0,
    stores: [],
  };
  if (type !== "tokenization") {
    const template = str(b, "template");
    if (template === undefined || template === "") problems.push("missing template");
    else {
      const found = templateOf(ctx, template);
      if (!found) problems.push(`template "${template}" does not exist`);
      else if (type === "fpe" && found.alphabet === "") problems.push(`template "${template}" names no alphabet; fpe needs one`);
      t.template = template;
    }
  } else if (generic && (str(b, "template") ?? "") === "") {
    problems.push("missing template (required by the generic endpoint, ignored for tokenization)");
  }
  if (type === "fpe") {
    t.tweak_source = oneOf(b, "tweak_source", TWEAK_SOURCES, previous?.tweak_source ?? "supplied");
    t.fpe_key = previous?.fpe_key ?? randomBytes(32).toString("base64");
    t.internal_tweak = previous?.internal_tweak ?? randomBytes(7).toString("base64");
  }
  if (type === "masking") {
    const mask = str(b, "masking_character") ?? "*";
    if (mask === "") problems.push("masking_character must not be empty");
    // Only the first character counts.
    t.masking_character = [...mask][0] ?? "*";
  }
  if (type === "tokenization") await tokenization(ctx, b, name, previous, t, generic, problems);
  if (problems.length > 0) bad(...problems);
  return t;
}

/** A tokenization's mapping mode, lifetime and stores (none of which may change), and its key ring. */
async function tokenization(ctx: SecretsContext, b: Body, name: string, previous: Transformation | undefined, t: Transformation, generic: boolean, problems: string[]): Promise<void> {
  t.mapping_mode = generic ? "default" : oneOf(b, "mapping_mode", MAPPING_MODES, previous?.mapping_mode ?? "default");
  t.max_ttl = durationSeconds(b.max_ttl, "max_ttl");
  t.stores = generic ? ["builtin/internal"] : strList(b, "stores", true) ?? previous?.stores ?? ["builtin/internal"];
  if (t.stores.length === 0) problems.push("stores must name at least one store");
  for (const s of t.stores) {
    const store = storeOf(ctx, s);
    if (!store) problems.push(`store "${s}" does not exist`);
    else if (!store.supported_transformations.includes("tokenization")) problems.push(`store "${s}" does not support tokenization`);
  }
  if (previous && previous.mapping_mode !== t.mapping_mode) {
    problems.push(`mapping_mode cannot change (${previous.mapping_mode} → ${t.mapping_mode}); delete the transformation and create it again`);
  }
  if (previous && previous.stores.join(",") !== t.stores.join(",")) {
    problems.push(`stores cannot change (${previous.stores.join(", ")} → ${t.stores.join(", ")}); delete the transformation and create it again`);
  }
  if (problems.length === 0) {
    if (previous) t.ring = previous.ring;
    else {
      // A SQL store may already hold this transformation's keys (an emulator restarted without state).
      const backend = backendFor(ctx, name, t);
      if (!(await backend.ring())) await backend.saveRing(newRing());
    }
  }
}

export function present(t: Transformation): Record<string, unknown> {
  const out: Record<string, unknown> = {
    allowed_roles: t.allowed_roles,
    templates: t.template ? [t.template] : [],
    tweak_source: t.tweak_source,
    type: t.type,
  };
  if (t.type === "masking") out.masking_character = t.masking_character;
  if (t.type === "tokenization") Object.assign(out, { mapping_mode: t.mapping_mode, max_ttl: t.max_ttl, stores: t.stores });
  return out;
}

function kind(type: TransformationType | undefined): NamedKind<Transformation> {
  return {
    path: "transformation",
    write(ctx, b, name, previous) {
      let chosen = type;
      if (!chosen) {
        const given = str(b, "type");
        if (given === undefined) bad("missing type");
        if (!TYPES.includes(given as TransformationType)) bad(`type must be one of ${TYPES.join(", ")}`);
        chosen = given as TransformationType;
      }
      return write(ctx, b, name, previous, chosen, type === undefined);
    },
    present,
    inUse(ctx, name) {
      const users = Object.entries(roles(ctx)).filter(([, r]) => r.transformations.includes(name)).map(([n]) => n);
      return users.map((r) => `transformation "${name}" is used by role "${r}"; remove it from the role's transformations or delete the role first`);
    },
    removed: (ctx, name) => dropTokens(ctx, name),
  };
}

export const transformationRoutes: Route<SecretsContext>[] = [
  ...namedRoutes(kind(undefined)),
  ...TYPES.flatMap((type) => namedRoutes(kind(type), `transformations/${type}`).filter((r) => r.method === "POST")),
];
