/**
 * CrossGuard's typed helpers for this package's classes. `@pulumi/policy`'s own
 * `validateResourceOfType(svc.secrets.keymgmt.Key, …)` matches our classes too (through their
 * `__pulumiType`), but hands the policy what the engine holds: besides the arguments, the server a
 * resource was recorded on (`serverUrl`), the secrets' version counters and, to a remediation, the
 * engine's own `__provider` and `__urn`; and secret values in plain text, which a message that
 * quotes them prints (the CLI masks only the stack's secret config). These helpers take the same
 * arguments and match through `@pulumi/policy`'s, and give the policy:
 *
 * - props that are the class's arguments as the program wrote them (defaults filled in), nothing else;
 * - a `reportViolation` that masks every secret value of the resource (`[secret]`) in the message;
 * - for a remediation, the properties it changes applied to what the engine holds, so the engine's
 *   keys and the secrets' wrapping stay as they were.
 *
 * Props are read lazily: a policy that reads only known values runs during a preview even when
 * other inputs are not known yet (CrossGuard reports a policy that reads an unknown one as not run).
 */
import type * as pulumi from "@pulumi/pulumi";
import * as policy from "@pulumi/policy";
import type { ReportViolation, ResourceRemediation, ResourceValidation, ResourceValidationArgs, StackValidation, StackValidationArgs } from "@pulumi/policy";
import { kindOfToken } from "../core/token";
import { kindFacts, type KindFacts } from "./kinds";

/** A resource class of this package whose arguments are `TArgs` (`svc.secrets.keymgmt.Key`). */
export type SvcClass<TResource extends pulumi.Resource, TArgs> = { new (name: string, args: TArgs, ...rest: any[]): TResource };

/** A class's arguments as a policy sees them: plain values, as the program gave them, defaults filled in. */
export type PolicyArgsOf<TArgs> = pulumi.Unwrap<NonNullable<TArgs>>;

/** What replaces a secret value in a violation's message. */
export const MASK = "[secret]";

/** The type token of a class of this package; any other class is refused when the policy is declared. */
function tokenOf(cls: unknown, helper: string): string {
  const token = (cls as { __pulumiType?: unknown } | undefined)?.__pulumiType;
  if (typeof token !== "string" || kindOfToken(token) === undefined) {
    const name = (cls as { name?: unknown } | undefined)?.name;
    throw new TypeError(`${helper} of pulumi-svc/policy takes a resource class of pulumi-svc (such as svc.secrets.keymgmt.Key), not ${typeof name === "string" && name ? name : String(cls)}: use @pulumi/policy's for other classes`);
  }
  return token;
}

async function factsOf(token: string): Promise<KindFacts> {
  const facts = await kindFacts(token);
  if (!facts) throw new Error(`${token}: not a kind of this pulumi-svc (is the policy pack's pulumi-svc older than the program's?)`);
  return facts;
}

/**
 * The arguments of the class out of the properties the engine sent: a view that reads through (so
 * CrossGuard's check of unknown values still applies, and only to what the policy reads) and shows
 * the argument keys alone. With `changes`, writes are kept there (a remediation's), not made.
 */
function argsView(props: Record<string, unknown>, facts: KindFacts, changes?: Map<string, unknown>): Record<string, unknown> {
  const shown = (k: string | symbol) => typeof k === "string" && facts.args.has(k);
  return new Proxy(props, {
    get: (t, k) => (!shown(k) ? undefined : changes?.has(k as string) ? changes.get(k as string) : Reflect.get(t, k)),
    has: (t, k) => shown(k) && (changes?.has(k as string) || Reflect.has(t, k)),
    ownKeys: (t) => [...new Set([...Reflect.ownKeys(t), ...(changes?.keys() ?? [])])].filter(shown),
    getOwnPropertyDescriptor: (t, k) => {
      if (!shown(k)) return undefined;
      if (changes?.has(k as string)) return { value: changes.get(k as string), writable: true, enumerable: true, configurable: true };
      return Reflect.getOwnPropertyDescriptor(t, k);
    },
    set: (_t, k, v) => {
      if (!changes) throw new TypeError("a validation's props are read-only: change them in a remediation");
      if (!shown(k)) throw new TypeError(`${String(k)} is not an argument of this resource: a remediation changes arguments only`);
      changes.set(k as string, v);
      return true;
    },
    deleteProperty: (_t, k) => {
      if (!changes || !shown(k)) return false;
      changes.set(k as string, undefined);
      return true;
    },
  });
}

/** The object behind CrossGuard's proxies (its unknown checks and secret wrappers), read without them. */
function raw(value: unknown): unknown {
  for (let v = value, i = 0; i < 4; i++) {
    const inner = v !== null && typeof v === "object" ? (v as Record<string, unknown>)["__getSpecialProxyTarget"] : undefined;
    if (inner === undefined || inner === v) return v;
    v = inner;
  }
  return value;
}

/** Every text inside a value (a secret map's members, a connection's token). */
function texts(value: unknown, out: string[] = []): string[] {
  const v = raw(value);
  if (typeof v === "string") out.push(v);
  else if (v instanceof policy.Secret) texts(v.value, out);
  else if (Array.isArray(v)) for (const e of v) texts(e, out);
  else if (v !== null && typeof v === "object") for (const e of Object.values(v)) texts(e, out);
  return out;
}

/** The secret texts of one resource's properties, as the engine sent them. */
function secretTexts(props: unknown, facts: KindFacts): string[] {
  return facts.secrets.flatMap((path) => texts(path.reduce<unknown>((v, k) => (raw(v) as Record<string, unknown> | undefined)?.[k], props)));
}

/** `text` with every secret in it masked, the longest first (one secret may contain another). */
export function masked(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...new Set(secrets)].filter((x) => x !== "").sort((a, b) => b.length - a.length)) out = out.split(s).join(MASK);
  return out;
}

/** A reportViolation that masks `secrets()` in whatever it reports. */
function masking(report: ReportViolation, secrets: () => string[]): ReportViolation {
  return ((message: unknown, urn?: string) => {
    const s = secrets();
    if (message !== null && typeof message === "object") {
      const m = message as Record<string, unknown>;
      const out = { ...m, ...(typeof m.message === "string" ? { message: masked(m.message, s) } : {}), ...(typeof m.description === "string" ? { description: masked(m.description, s) } : {}) };
      return (report as unknown as (m: unknown) => void)(out);
    }
    return report(typeof message === "string" ? masked(message, s) : (message as string), urn);
  }) as ReportViolation;
}

/** The args a policy gets, with the view as its props (asType too). */
function withView<A extends { props: Record<string, any>; isType(c: any): boolean }>(args: A, view: Record<string, unknown>): A {
  return { ...args, props: view, asType: (cls: unknown) => (args.isType(cls as never) ? view : undefined) };
}

/**
 * `@pulumi/policy`'s `validateResourceOfType` for a class of this package: the policy runs on each
 * resource of `resourceClass` with its arguments as props, typed as the class's arguments, and a
 * `reportViolation` that masks the resource's secrets.
 *
 * @example
 * ```ts
 * validateResource: validateResourceOfType(svc.secrets.keymgmt.Key, (key, args, reportViolation) => {
 *   if (key.deletionAllowed) reportViolation(`key ${key.name} can be deleted`);
 * }),
 * ```
 */
export function validateResourceOfType<TResource extends pulumi.Resource, TArgs>(
  resourceClass: SvcClass<TResource, TArgs>,
  validate: (props: PolicyArgsOf<TArgs>, args: ResourceValidationArgs, reportViolation: ReportViolation) => Promise<void> | void,
): ResourceValidation {
  const token = tokenOf(resourceClass, "validateResourceOfType");
  return policy.validateResourceOfType(resourceClass, async (_props, args, reportViolation) => {
    const facts = await factsOf(token);
    const view = argsView(args.props, facts);
    await validate(view as PolicyArgsOf<TArgs>, withView(args, view), masking(reportViolation, () => secretTexts(args.props, facts)));
  });
}

/**
 * `@pulumi/policy`'s `validateStackResourcesOfType` for a class of this package: the policy runs
 * once over every resource of `resourceClass` in the stack (with each one's arguments as props, in
 * `args.resources` too), when there is at least one.
 */
export function validateStackResourcesOfType<TResource extends pulumi.Resource, TArgs>(
  resourceClass: SvcClass<TResource, TArgs>,
  validate: (resources: PolicyArgsOf<TArgs>[], args: StackValidationArgs, reportViolation: ReportViolation) => Promise<void> | void,
): StackValidation {
  const token = tokenOf(resourceClass, "validateStackResourcesOfType");
  return policy.validateStackResourcesOfType(resourceClass, async (_resolved, args, reportViolation) => {
    const facts = await factsOf(token);
    const resources = args.resources.map((r) => withView(r, argsView(r.props, facts)));
    const secrets = () => args.resources.flatMap((r) => secretTexts(r.props, facts));
    await validate(resources.map((r) => r.props as PolicyArgsOf<TArgs>), { ...args, resources }, masking(reportViolation, secrets));
  });
}

/**
 * `@pulumi/policy`'s `remediateResourceOfType` for a class of this package. The remediation gets
 * the arguments as props and either changes them in place and returns them, or returns an object of
 * the arguments to change (`{ insecureTls: false }`); a property set to `undefined` is removed.
 * Those changes, and only those, are made to what the engine holds: the engine's own properties
 * and the secrets' wrapping stay, and a change of anything but an argument is refused.
 */
export function remediateResourceOfType<TResource extends pulumi.Resource, TArgs>(
  resourceClass: SvcClass<TResource, TArgs>,
  remediate: (props: PolicyArgsOf<TArgs>, args: ResourceValidationArgs) => Promise<Partial<PolicyArgsOf<TArgs>> | void> | Partial<PolicyArgsOf<TArgs>> | void,
): ResourceRemediation {
  const token = tokenOf(resourceClass, "remediateResourceOfType");
  return policy.remediateResourceOfType(resourceClass, async (_props, args) => {
    const facts = await factsOf(token);
    const changes = new Map<string, unknown>();
    const view = argsView(args.props, facts, changes);
    const result = await remediate(view as PolicyArgsOf<TArgs>, withView(args, view));
    if (result !== undefined && result !== null && result !== view) {
      for (const [k, v] of Object.entries(result)) {
        if (!facts.args.has(k)) throw new TypeError(`${k} is not an argument of ${facts.kind}: a remediation changes arguments only`);
        view[k] = v;
      }
    }
    const changed = [...changes].filter(([k, v]) => !same(() => args.props[k], v));
    if (changed.length === 0) return undefined;
    for (const [k, v] of changed) {
      if (v === undefined) delete args.props[k];
      else args.props[k] = v;
    }
    return args.props;
  });
}

/** Whether the engine's value (read lazily: it may be unknown) is already `value`. */
function same(read: () => unknown, value: unknown): boolean {
  try {
    return JSON.stringify(raw(read())) === JSON.stringify(value);
  } catch {
    return false;
  }
}
