// The `__provider` texts the package writes where its provider modules are built
// (src/core/providerText.ts): each loads the kind's module as the provider host evaluates it, a
// checkout's falls back on the module's path where the package's name does not resolve, and the
// provider hosts that testStack keeps take each for the package's own, and no other.
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { builtProviderText, providerModulePath, providerRequest } from "../../src/core/providerText";
import { isOwnProvider } from "../../src/engine/reuse";
import { root } from "../support/dist";

const KIND = "secrets:TransformTemplate";
const TYPE = `pulumi-nodejs:dynamic/${KIND}`;
const built = path.join(root, "dist/src", providerModulePath(KIND));
const installed = builtProviderText(KIND, `/home/u/infra/node_modules/${providerRequest(KIND)}`);
const checkout = builtProviderText(KIND, built);

/** What the host does with a text: evaluate it as a module, with `require` as given, and call its handler. */
function handlerOf(text: string, req: (id: string) => unknown): unknown {
  const module = { exports: {} as { handler?: () => unknown } };
  new Function("exports", "require", "module", text)(module.exports, req, module);
  return module.exports.handler!();
}

const notFound = (id: string) => Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });

describe("provider texts", () => {
  it("the installed text requires the kind's module by the package's name", () => {
    const seen: string[] = [];
    const provider = handlerOf(installed, (id) => (seen.push(id), require(built)));
    expect(seen).toEqual(["pulumi-svc/dist/src/providers/secrets/TransformTemplate.js"]);
    expect(typeof (provider as { check?: unknown }).check).toBe("function");
  });

  it("a checkout's text takes the name where it resolves, else the module's path; any other error stands", () => {
    const text = checkout;
    const seen: string[] = [];
    handlerOf(text, (id) => (seen.push(id), require(built)));
    expect(seen).toEqual([providerRequest(KIND)]);

    seen.length = 0;
    const provider = handlerOf(text, (id) => {
      seen.push(id);
      if (id === providerRequest(KIND)) throw notFound(id);
      return require(id);
    });
    expect(seen).toEqual([providerRequest(KIND), built]);
    expect(provider).toBe(require(built));

    expect(() => handlerOf(text, () => { throw new SyntaxError("broken module"); })).toThrow("broken module");
  });

  it("kept provider hosts take the package's own texts for their kind only", () => {
    expect(isOwnProvider(installed, TYPE)).toBe(true);
    expect(isOwnProvider(checkout, TYPE)).toBe(true);
    // Another file behind the same name, another kind's type, another text around the require.
    expect(isOwnProvider(builtProviderText(KIND, "/tmp/elsewhere/TransformTemplate.js"), TYPE)).toBe(false);
    expect(isOwnProvider(checkout, "pulumi-nodejs:dynamic/secrets:TransformAlphabet")).toBe(false);
    expect(isOwnProvider(`${installed}globalThis.kept = 1;\n`, TYPE)).toBe(false);
  });
});
