/**
 * The public class of each kind (`secrets.transform.Template`), found at run time: the resource
 * class that the kind's module exports, named where the package's surface exports it. So no table
 * links a kind to its class (as in the reference pages' generator).
 */
import * as pulumi from "@pulumi/pulumi";
import * as surface from "../index";
import { kindModule } from "../kinds";

let named: Map<unknown, string> | undefined;

const isResourceClass = (v: unknown): boolean => typeof v === "function" && (v as { prototype?: unknown }).prototype instanceof pulumi.CustomResource;

/** Every resource class of the package's surface → its qualified name. */
function classNames(): Map<unknown, string> {
  if (named) return named;
  const found = new Map<unknown, string>();
  const visit = (o: object, at: string[]) => {
    for (const [k, v] of Object.entries(o)) {
      if (isResourceClass(v)) found.set(v, [...at, k].join("."));
      else if (v && typeof v === "object" && !Array.isArray(v) && at.length < 3) visit(v as object, [...at, k]);
    }
  };
  visit(surface, []);
  return (named = found);
}

/** `secrets.transform.Template` for `secrets:TransformTemplate`. */
export async function classOf(kind: string): Promise<string> {
  const mod = await kindModule(kind);
  const names = classNames();
  const cls = Object.values(mod ?? {}).find((v) => names.has(v));
  if (!cls) throw new Error(`${kind}: no public resource class found in its module`);
  return names.get(cls)!;
}
