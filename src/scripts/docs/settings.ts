/**
 * The settings table of docs/configuration.md and its first rows in README.md, from SETTINGS
 * (src/core/config.ts): each setting's key, variable, whether it is a credential and what it is are
 * declared there once; what only a reader needs (a header, a default, a link) is added here.
 */
import { SETTINGS, type SettingName } from "../../core/config";
import { DEFAULT_MAX_CONCURRENT_REQUESTS } from "../../http/limiter";

export const SETTINGS_BEGIN = "<!-- settings: the table below is written by `npm run docs` from SETTINGS (src/core/config.ts); do not edit -->";
export const SETTINGS_END = "<!-- /settings -->";

// The defaults of the timeout and the retries live in the HTTP client's options (src/http/client.ts).
const MORE: Partial<Record<SettingName, string>> = {
  runToken: " (`Authorization: Bearer`)",
  secretsToken: " (`X-Svc-Token`)",
  caCert: "; replaces the system roots",
  requestTimeoutMs: ", in milliseconds, default 30000",
  maxRetries: ", default 4",
  maxConcurrentRequests: ` (the provider host, the program), default ${DEFAULT_MAX_CONCURRENT_REQUESTS}; a connection may set its own ([Teams and scale](scale.md))`,
};

/**
 * The table between the markers: every setting, or (`needed`) only those a program must have, the
 * services' URLs and tokens (the settings whose missing value suggests a command to set it).
 */
export function settingsBlock(needed = false): string {
  const lines = [SETTINGS_BEGIN, "", "| stack config | environment | meaning |", "|---|---|---|"];
  for (const [name, s] of Object.entries(SETTINGS) as [SettingName, (typeof SETTINGS)[SettingName]][]) {
    if (needed && !("example" in s)) continue;
    const secret = "secret" in s ? " (secret)" : "";
    lines.push(`| \`${s.key}\`${secret} | \`${s.env}\` | ${s.about}${MORE[name] ?? ""} |`);
  }
  lines.push("", SETTINGS_END);
  return lines.join("\n");
}
