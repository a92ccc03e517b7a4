// pulumi-svc/policy is the one part of the package that needs @pulumi/policy (an optional peer
// dependency): a program, the provider host, the emulator or pulumi-svc/testing must load without it.
// So only src/policy imports it, and nothing outside src/policy imports src/policy, type-only
// imports included.
import * as fs from "node:fs";
import * as path from "node:path";
import madge from "madge";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";

const src = path.join(root, "src");
const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
const inPolicy = (file: string) => path.relative(src, file).startsWith(`policy${path.sep}`);

describe("@pulumi/policy stays in pulumi-svc/policy", () => {
  it("no file outside src/policy names @pulumi/policy", () => {
    const naming = files(src).filter((f) => !inPolicy(f) && /["']@pulumi\/policy(\/[^"']*)?["']/.test(fs.readFileSync(f, "utf8")));
    expect(naming.map((f) => path.relative(root, f))).toEqual([]);
    // The check sees the files it must: src/policy does import it.
    expect(files(path.join(src, "policy")).some((f) => fs.readFileSync(f, "utf8").includes('from "@pulumi/policy"'))).toBe(true);
  });

  it("no file outside src/policy imports src/policy, type-only imports included", async () => {
    const graph = await madge(src, {
      fileExtensions: ["ts"],
      tsConfig: path.join(root, "tsconfig.json"),
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    });
    const into = Object.entries(graph.obj()).filter(([file]) => !file.startsWith("policy/")).flatMap(([file, deps]) => deps.filter((d) => d.startsWith("policy/")).map((d) => `${file} → ${d}`));
    expect(into).toEqual([]);
    expect(Object.keys(graph.obj()).some((f) => f.startsWith("policy/"))).toBe(true);
  }, 120_000);

  it("package.json gives it as an entry of its own, @pulumi/policy an optional peer", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
    expect(pkg.exports["./policy"]).toBe("./dist/src/policy/index.js");
    expect(pkg.typesVersions["*"].policy).toEqual(["dist/src/policy/index.d.ts"]);
    expect(pkg.peerDependencies["@pulumi/policy"]).toBeDefined();
    expect(pkg.peerDependenciesMeta["@pulumi/policy"]).toEqual({ optional: true });
    expect(pkg.dependencies["@pulumi/policy"]).toBeUndefined();
  });
});
