/**
 * `pulumi-svc/policy`: policy as code for both services, for Pulumi's CrossGuard (`@pulumi/policy`,
 * an optional peer dependency that only this entry needs).
 *
 * - `svcPolicies()`: the ready pack of the services' pitfalls, each policy tunable through the
 *   pack's config file;
 * - `validateResourceOfType`, `validateStackResourcesOfType`, `remediateResourceOfType`:
 *   `@pulumi/policy`'s helpers for this package's classes, whose props are the class's arguments
 *   (no bookkeeping of the provider or the engine) and whose violations never show a secret.
 *
 * @example
 * ```ts
 * import { PolicyPack } from "@pulumi/policy";
 * import { svcPolicies } from "pulumi-svc/policy";
 * new PolicyPack("svc-guard", { policies: svcPolicies() });
 * ```
 */
export { svcPolicies } from "./pack";
export { validateResourceOfType, validateStackResourcesOfType, remediateResourceOfType, MASK, type PolicyArgsOf, type SvcClass } from "./typed";
