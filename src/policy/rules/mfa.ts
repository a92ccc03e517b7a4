// The dual-factor method's rule: which provider its keys are given to.
import { DualFactorMethod } from "../../secrets/mfa/dualFactorMethod";
import { namesSetting } from "../config";
import { resourceRule } from "../rule";

/** Whether `host` is one of `domains` or below one (the port, if any, left out). */
export function inDomains(host: string, domains: readonly string[]): boolean {
  const h = host.replace(/:\d+$/, "").toLowerCase().replace(/\.$/, "");
  return domains.some((d) => {
    const dom = d.toLowerCase().replace(/^\.|\.$/g, "");
    return h === dom || h.endsWith(`.${dom}`);
  });
}

export const mfaProviderHost = resourceRule(DualFactorMethod, "mfa-provider-host", "advisory", {
  description: "A dual-factor method talks to the team's provider. The method's secret key and integration key are the provider's credentials for api_hostname, and the service reads them back in plain text to whoever may read the method (secrets service seed A, Dual-factor MFA method): a method pointed at another host hands that host every login's second factor. Set allowedDomains to the provider's domains; empty checks nothing.",
  remediationSteps: "Point apiHostname at the provider's API host, or add its domain to allowedDomains.",
  config: { allowedDomains: namesSetting("Domains of the team's dual-factor provider (example.com allows api-1234.example.com); empty checks nothing.") },
  validate(m, { allowedDomains }: { allowedDomains: string[] }, reportViolation) {
    if (allowedDomains.length > 0 && !inDomains(m.apiHostname, allowedDomains)) reportViolation(`dual-factor method's apiHostname ${m.apiHostname} is not in ${allowedDomains.join(", ")}`);
  },
});
