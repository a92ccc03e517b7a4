// The provider and the emulator read as layers: no import circle anywhere in src/, type-only imports
// included (madge follows them). `npm run cycles` prints the same reading for a developer.
import * as path from "node:path";
import madge from "madge";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";

describe("the import graph of src/", () => {
  it("has no circle, type-only imports included", async () => {
    const graph = await madge(path.join(root, "src"), {
      fileExtensions: ["ts"],
      tsConfig: path.join(root, "tsconfig.json"),
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    });
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(150);
    expect(graph.circular()).toEqual([]);
  }, 120_000);

  it("the emulator imports nothing from the provider side", async () => {
    const graph = await madge(path.join(root, "src/emulator"), { fileExtensions: ["ts"], tsConfig: path.join(root, "tsconfig.json") });
    const outside = Object.entries(graph.obj()).flatMap(([file, deps]) => deps.filter((d) => d.startsWith("..")).map((d) => `${file} → ${d}`));
    expect(outside).toEqual([]);
  }, 120_000);

  // The folders every area shares reach the areas through rt.areas (src/emulator/area.ts), never by
  // an import, so a new object or area touches none of them. Any other folder of the emulator is an
  // area's (runs/, secrets/): a new one is held to this too.
  it("the emulator's shared folders import no area's file, type-only imports included", async () => {
    const shared = ["persistence", "control", "ui", "transport"];
    const graph = await madge(path.join(root, "src/emulator"), {
      fileExtensions: ["ts"],
      tsConfig: path.join(root, "tsconfig.json"),
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    });
    const folderOf = (file: string) => (file.includes("/") ? file.split("/")[0] : undefined);
    const files = Object.keys(graph.obj());
    // The check sees every shared folder and at least the two areas there are today.
    expect(new Set(files.map(folderOf).filter((f) => f !== undefined && shared.includes(f)))).toEqual(new Set(shared));
    expect(files.filter((f) => f.startsWith("runs/") || f.startsWith("secrets/")).length).toBeGreaterThan(50);
    const reaching = Object.entries(graph.obj())
      .filter(([file]) => shared.includes(folderOf(file) ?? ""))
      .flatMap(([file, deps]) => deps.filter((d) => folderOf(d) !== undefined && !shared.includes(folderOf(d)!) && !d.startsWith("..")).map((d) => `${file} → ${d}`));
    expect(reaching).toEqual([]);
  }, 120_000);

  // Core is the machinery every definition stands on: an import from above it (a definition, the
  // kinds, the settings of a tool) would make the layers a circle in all but name.
  it("src/core imports only src/core and src/http, type-only imports included", async () => {
    const graph = await madge(path.join(root, "src/core"), {
      fileExtensions: ["ts"],
      tsConfig: path.join(root, "tsconfig.json"),
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    });
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(20);
    // Keys and imports are relative to src/core: "../http/errors.ts" is below, "../kinds.ts" above.
    const outside = Object.entries(graph.obj()).filter(([file]) => !file.startsWith("..")).flatMap(([file, deps]) =>
      deps.filter((d) => d.startsWith("..") && !d.startsWith("../http/")).map((d) => `${file} → ${d}`));
    expect(outside).toEqual([]);
  }, 120_000);
});
