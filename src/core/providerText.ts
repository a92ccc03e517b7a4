/**
 * The text the engine stores as each resource's `__provider` and the provider host evaluates (its
 * `handler()` must return the provider object), when the build has written the kind's provider
 * module (src/scripts/providers.ts). Here, not in resource.ts, so that what recognizes a text as
 * the package's own (src/engine/reuse.ts) compares it with the same function that writes it.
 */
import * as path from "path";
import { kindName, serviceOfKind } from "./token";

/** Where the build writes a kind's provider module, relative to the compiled src/ folder. */
export function providerModulePath(kind: string): string {
  return path.join("providers", serviceOfKind(kind), `${kindName(kind)}.js`);
}

/** The module as the package's name and a path: what the package's exports let any program require. */
export function providerRequest(kind: string): string {
  return `pulumi-svc/dist/src/${providerModulePath(kind).split(path.sep).join("/")}`;
}

/**
 * Installed under node_modules: one require of the kind's module (`request`, its path from
 * node_modules), which the host resolves from its
 * working directory as it would the SDK serializer's require, in about 100 characters instead of
 * the serializer's 300: the engine rewrites every resource's entry after each step, so at a
 * thousand resources each character counts.
 */
export function installedProviderText(request: string): string {
  return `exports.handler = () => require(${JSON.stringify(request)});\n`;
}

/**
 * In a checkout (the examples, the repository's own programs): the module by name where the host's
 * folder resolves the package (inside the checkout, through its exports), else by its absolute
 * path, `file`. The same two steps the trampoline takes when the SDK serializes it, without the
 * serializer: capturing a function by value costs a program about a tenth of a second of CPU
 * (an inspector session, a parse of the function's text), once per kind.
 */
export function checkoutProviderText(kind: string, file: string): string {
  return `exports.handler = () => {\n  try {\n    return require(${JSON.stringify(providerRequest(kind))});\n  } catch (e) {\n` +
    `    if (e.code !== "MODULE_NOT_FOUND" && e.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw e;\n` +
    `    return require(${JSON.stringify(file)});\n  }\n};\n`;
}
