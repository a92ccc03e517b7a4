// The dual-factor method's rule: which provider its keys are given to.
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { DualFactorMethod } from "../../secrets/mfa/dualFactorMethod";
import { configOf, namesSetting } from "../config";
import { validateResourceOfType } from "../typed";

const hostSchema = { properties: { allowedDomains: namesSetting("Domains of the team's dual-factor provider (example.com allows api-1234.example.com); empty checks nothing.") } };

/** Whether `host` is one of `domains` or below one (the port, if any, left out). */
export function inDomains(host: string, domains: readonly string[]): boolean {
  const h = host.replace(/:\d+$/, "").toLowerCase().replace(/\.$/, "");
  return domains.some((d) => {
    const dom = d.toLowerCase().replace(/^\.|\.$/g, "");
    return h === dom || h.endsWith(`.${dom}`);
  });
}

export const mfaProviderHost: ResourceValidationPolicy = {
  name: "mfa-provider-host",
  description: "A dual-factor method talks to the team's provider. The method's secret key and integration key are the provider's credentials for api_hostname, and the service reads them back in plain text to whoever may read the method (secrets service seed A, Dual-factor MFA method): a method pointed at another host hands that host every login's second factor. Set allowedDomains to the provider's domains; empty checks nothing.",
  enforcementLevel: "advisory",
  configSchema: hostSchema,
  remediationSteps: "Point apiHostname at the provider's API host, or add its domain to allowedDomains.",
  validateResource: validateResourceOfType(DualFactorMethod, (m, args, reportViolation) => {
    const { allowedDomains } = configOf<{ allowedDomains: string[] }>(hostSchema, args.getConfig());
    if (allowedDomains.length > 0 && !inDomains(m.apiHostname, allowedDomains)) reportViolation(`dual-factor method's apiHostname ${m.apiHostname} is not in ${allowedDomains.join(", ")}`);
  }),
};
