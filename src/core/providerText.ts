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
 * The text for the kind's built module at `file`. Installed under node_modules: one require of it
 * by its path from node_modules, which the host resolves from its working directory as the SDK
 * serializer's require would, in about 100 characters instead of the serializer's 300 (the engine
 * rewrites every resource's entry after each step, so at a thousand resources each character
 * counts). In a checkout (the examples, the repository's own programs): the module by the
 * package's name where the host's folder resolves it (inside the checkout, through its exports),
 * else by its absolute path: the two steps the trampoline takes when the SDK serializes it, without
 * the serializer, whose capture by value costs a program about a tenth of a second of CPU (an
 * inspector session, a parse of the function's text), once per kind.
 */
export function builtProviderText(kind: string, file: string): string {
  const posix = file.split(path.sep).join("/");
  const at = posix.lastIndexOf("/node_modules/");
  if (at >= 0) return `exports.handler = () => require(${JSON.stringify(posix.slice(at + "/node_modules/".length))});\n`;
  return `exports.handler = () => {\n  try {\n    return require(${JSON.stringify(providerRequest(kind))});\n  } catch (e) {\n` +
    `    if (e.code !== "MODULE_NOT_FOUND" && e.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw e;\n` +
    `    return require(${JSON.stringify(posix)});\n  }\n};\n`;
}
