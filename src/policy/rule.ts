/**
 * A rule of the ready pack, declared once: its name and default enforcement level, the words a
 * user reads (why, and how to comply), its thresholds (the settings of its config schema) and its
 * check on a class of this package, which gets the config it runs with (the schema's defaults,
 * then the pack's config file) as values rather than reading it itself.
 */
import type * as pulumi from "@pulumi/pulumi";
import type {
  EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy, StackValidationArgs, StackValidationPolicy,
} from "@pulumi/policy";
import { configOf } from "./config";
import { remediateResourceOfType, validateResourceOfType, validateStackResourcesOfType, type PolicyArgsOf, type SvcClass } from "./typed";

/** What every rule declares besides its check. */
export interface RuleWords {
  /** Why: the services' documented behaviour it rests on. */
  description: string;
  remediationSteps: string;
  /** Its thresholds, by name: the properties of its config schema. */
  config?: PolicyConfigSchema["properties"];
}

type Config = Record<string, unknown>;

function common(name: string, enforcementLevel: EnforcementLevel, words: RuleWords) {
  const configSchema: PolicyConfigSchema = { properties: words.config ?? {} };
  const config = <C extends Config>(args: { getConfig(): object }) => configOf<C>(configSchema, args.getConfig());
  return { policy: { name, enforcementLevel, description: words.description, remediationSteps: words.remediationSteps, configSchema }, config };
}

/** A rule on each resource of `resourceClass`, with its props typed as the class's arguments; it may remediate. */
export function resourceRule<TResource extends pulumi.Resource, TArgs, C extends Config = Config>(
  resourceClass: SvcClass<TResource, TArgs>, name: string, enforcementLevel: EnforcementLevel,
  rule: RuleWords & {
    validate(props: PolicyArgsOf<TArgs>, config: C, reportViolation: ReportViolation): void;
    remediate?(props: PolicyArgsOf<TArgs>, config: C): Partial<PolicyArgsOf<TArgs>> | undefined;
  },
): ResourceValidationPolicy {
  const { policy, config } = common(name, enforcementLevel, rule);
  const remediate = rule.remediate;
  return {
    ...policy,
    validateResource: validateResourceOfType(resourceClass, (props, args, report) => rule.validate(props, config<C>(args), report)),
    ...(remediate ? { remediateResource: remediateResourceOfType(resourceClass, (props, args) => remediate(props, config<C>(args))) } : {}),
  };
}

/** A rule over every resource of `resourceClass` in the stack at once. */
export function stackRule<TResource extends pulumi.Resource, TArgs, C extends Config = Config>(
  resourceClass: SvcClass<TResource, TArgs>, name: string, enforcementLevel: EnforcementLevel,
  rule: RuleWords & { validate(resources: PolicyArgsOf<TArgs>[], config: C, reportViolation: ReportViolation, args: StackValidationArgs): void },
): StackValidationPolicy {
  const { policy, config } = common(name, enforcementLevel, rule);
  return { ...policy, validateStack: validateStackResourcesOfType(resourceClass, (resources, args, report) => rule.validate(resources, config<C>(args), report, args)) };
}

/** A rule on every resource, whatever its class (what the engine recorded of it: its type and props). */
export function anyResourceRule<C extends Config = Config>(name: string, enforcementLevel: EnforcementLevel,
  rule: RuleWords & { validate(args: ResourceValidationArgs, config: C, reportViolation: ReportViolation): void }): ResourceValidationPolicy {
  const { policy, config } = common(name, enforcementLevel, rule);
  return { ...policy, validateResource: (args, report) => rule.validate(args, config<C>(args), report) };
}

/** A rule over the whole stack, reading the resources of several classes itself. */
export function anyStackRule<C extends Config = Config>(name: string, enforcementLevel: EnforcementLevel,
  rule: RuleWords & { validate(args: StackValidationArgs, config: C, reportViolation: ReportViolation): void }): StackValidationPolicy {
  const { policy, config } = common(name, enforcementLevel, rule);
  return { ...policy, validateStack: (args, report) => rule.validate(args, config<C>(args), report) };
}
