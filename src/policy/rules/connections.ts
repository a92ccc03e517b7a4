// Connection rules: how the provider reaches the services, and how the services reach what they manage.
import { kindOfToken } from "../../core/token";
import { Config as DirectoryConfig } from "../../secrets/directory/config";
import { AccessConfig } from "../../secrets/registry/accessConfig";
import { isLoopback, namesSetting, plainHttpOutside } from "../config";
import { anyResourceRule, resourceRule } from "../rule";

const httpHosts = { allowedHttpHosts: namesSetting("Servers besides loopback the provider may reach over plain http.") };

export const connectionTls = anyResourceRule("connection-tls", "mandatory", {
  description: "Every resource of the services lives on a server reached over HTTPS, or on loopback. Each request of the provider carries its token, X-Svc-Token on the secrets service and Authorization: Bearer on the run service (the three seeds, Authentication); over plain http a root or admin token crosses the network readable. The server is the resource's connection url, else svc:runUrl / svc:secretsUrl, else SVC_RUN_URL / SVC_SECRETS_URL.",
  remediationSteps: "Give the connection (or svc:secretsUrl / svc:runUrl) an https:// URL, or name the host in allowedHttpHosts.",
  config: httpHosts,
  validate(args, { allowedHttpHosts }: { allowedHttpHosts: string[] }, reportViolation) {
    if (kindOfToken(args.type) === undefined) return args.notApplicable("not a resource of pulumi-svc");
    // What check recorded as the resource's server: where every request of it goes.
    const server: unknown = args.props.serverUrl;
    if (typeof server === "string" && plainHttpOutside(server, allowedHttpHosts)) reportViolation(`${args.name} is reached at ${server}, plain http outside loopback`);
  },
});

/** The URLs of a directory config (a comma-separated list tried in order). */
const ldapUrls = (url: string | undefined) => (url ?? "ldap://127.0.0.1").split(",").map((u) => u.trim()).filter((u) => u !== "");

export const directoryTls = resourceRule(DirectoryConfig, "directory-tls", "mandatory", {
  description: "The directory engine binds over verified TLS. insecure_tls skips the server certificate's verification, and without ldaps:// or starttls the connection is unencrypted (secrets service seed B, Directory engine configuration); the engine binds with binddn and bindpass and then sets service accounts' passwords over that connection. Remediation sets insecureTls back to false, the default, in place.",
  remediationSteps: "Use ldaps:// URLs or starttls, give the CA in certificate, and leave insecureTls out.",
  config: { allowedPlainHosts: namesSetting("Directory servers besides loopback that may be bound to without TLS.") },
  validate(c, { allowedPlainHosts }: { allowedPlainHosts: string[] }, reportViolation) {
    if (c.insecureTls === true) reportViolation("directory config: insecureTls skips the verification of the directory's certificate");
    if (c.starttls === true) return;
    for (const u of ldapUrls(c.url)) {
      const host = /^ldap:\/\/([^/:]+|\[[^\]]+\])/i.exec(u)?.[1];
      if (host && !isLoopback(host) && !allowedPlainHosts.includes(host)) reportViolation(`directory config: ${u} is unencrypted LDAP (no ldaps://, no starttls)`);
    }
  },
  remediate: (c) => (c.insecureTls === true ? { insecureTls: false } : undefined),
});

export const registryAccessTls = resourceRule(AccessConfig, "registry-access-tls", "advisory", {
  description: "The registry engine reaches the registry over https. The access config's scheme defaults to http, and its token must be a management-type registry ACL token (secrets service seed B, Service-registry engine): over http that token, which manages every ACL of the registry, crosses the network readable.",
  remediationSteps: "Set scheme to https (with caCert for a private CA), or name the host in allowedHttpHosts.",
  config: httpHosts,
  validate(c, { allowedHttpHosts }: { allowedHttpHosts: string[] }, reportViolation) {
    const host = c.address.replace(/:\d+$/, "");
    if ((c.scheme ?? "http") === "http" && !isLoopback(host) && !allowedHttpHosts.includes(host.replace(/^\[|\]$/g, ""))) {
      reportViolation(`registry access to ${c.address} uses http: the management token crosses the network readable`);
    }
  },
});
