/**
 * What a policy needs to know of a kind, read from the kind's one field record: which properties a
 * program gives (everything else the engine holds for a resource is bookkeeping: `serverUrl`, the
 * secrets' versions, the engine's `__` keys), which of them are secret, and which replace the object
 * when they change (a remediation never touches those).
 */
import { CONNECTION_KEY } from "../core/connected";
import { kindOfToken } from "../core/token";
import { kindDefinition } from "../kinds";

export interface KindFacts {
  /** The kind (`secrets:KeymgmtKey`). */
  kind: string;
  /** The properties of the class's arguments: its input fields and `connection`. */
  args: ReadonlySet<string>;
  /** Paths of the values that are secret: the secret fields (inputs and outputs), and a connection's token. */
  secrets: readonly (readonly string[])[];
  /** Inputs whose change replaces the object. */
  immutable: ReadonlySet<string>;
}

const known = new Map<string, KindFacts>();

/** The facts of the kind whose type token is `type`; undefined for a type that is not this package's. */
export async function kindFacts(type: string): Promise<KindFacts | undefined> {
  const cached = known.get(type);
  if (cached) return cached;
  const kind = kindOfToken(type);
  const def = kind === undefined ? undefined : await kindDefinition(kind);
  if (!kind || !def) return undefined;
  const fields = Object.entries(def.fields ?? {});
  const facts: KindFacts = {
    kind,
    args: new Set([...fields.filter(([, f]) => !f.flags.output).map(([k]) => k), CONNECTION_KEY]),
    secrets: [...fields.filter(([, f]) => f.flags.secret).map(([k]) => [k]), [CONNECTION_KEY, "token"]],
    immutable: new Set([...(def.immutable ?? []), ...(def.identity ?? [])]),
  };
  known.set(type, facts);
  return facts;
}
