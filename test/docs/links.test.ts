// Every link between the README, the CHANGELOG and the pages under docs/ (generated ones too) must reach a file of the
// repository and, with a #fragment, a heading of that file (as the usual code hosts make anchors).
// External links are not fetched: the machine that runs the tests has no network.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { anchorsOf, localLinks, manualFiles } from "../support/markdown";

describe("links in the README and docs/", () => {
  it("the manual has an index page and a CHANGELOG", () => {
    expect(fs.existsSync(path.join(root, "docs/README.md"))).toBe(true);
    expect(fs.existsSync(path.join(root, "CHANGELOG.md"))).toBe(true);
  });

  it("every local link reaches a file, and every #fragment a heading of it", () => {
    const broken: string[] = [];
    const anchors = new Map<string, Set<string>>();
    for (const file of manualFiles()) {
      for (const { target, fragment } of localLinks(file)) {
        const abs = path.join(root, target);
        if (target.startsWith("..") || !fs.existsSync(abs)) {
          broken.push(`${file}: ${target} does not exist`);
          continue;
        }
        if (!fragment || !target.endsWith(".md")) continue;
        if (!anchors.has(target)) anchors.set(target, anchorsOf(fs.readFileSync(abs, "utf8")));
        if (!anchors.get(target)!.has(fragment)) broken.push(`${file}: ${target}#${fragment} names no heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("every page of docs/ is reached from the index page or from a page it reaches", () => {
    const reached = new Set<string>(["README.md"]);
    const queue = ["README.md"];
    while (queue.length > 0) {
      for (const { target } of localLinks(queue.shift()!)) {
        if (target.endsWith(".md") && !reached.has(target) && fs.existsSync(path.join(root, target))) {
          reached.add(target);
          queue.push(target);
        }
      }
    }
    expect(manualFiles().filter((f) => !reached.has(f))).toEqual([]);
  });

  it("the README is a front door: at most 250 lines", () => {
    const lines = fs.readFileSync(path.join(root, "README.md"), "utf8").split("\n").length;
    expect(lines, `README.md has ${lines} lines`).toBeLessThanOrEqual(250);
  });
});
