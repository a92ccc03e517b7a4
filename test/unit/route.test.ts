// A route of the route tables, "METHOD /path/{param}", is read in one place (src/http/route.ts): the
// client, an object's path and id form, the import and the reference pages all read it there.
import { describe, expect, it } from "vitest";
import { inputsFromPath, pathForm, pathOf } from "../../src/core/path";
import { parseRoute, pathPieces, routeParams, routeTarget, routeWords } from "../../src/http/route";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";

describe("routes", () => {
  it("are a method, a path and the parameters the path names, in order", () => {
    expect(parseRoute("GET /{mount}/template/{name}")).toEqual({ method: "GET", path: "/{mount}/template/{name}" });
    expect(parseRoute(" list  /sys/plugins/catalog/{type} ")).toEqual({ method: "LIST", path: "/sys/plugins/catalog/{type}" });
    expect(routeParams("POST /workspaces/{workspace_id}/notification-configurations")).toEqual(["workspace_id"]);
    expect(routeParams("GET /{mount}/kms/{kms}/key/{name}")).toEqual(["mount", "kms", "name"]);
    expect(routeParams("GET /ping")).toEqual([]);
    expect(pathPieces("/{mount}/template/{name}")).toEqual(["/", "mount", "/template/", "name", ""]);
    expect(routeTarget("GET /{mount}/template/{name}")).toBe("{mount}/template/{name}");
    expect(routeWords("GET /{mount}/kms/{kms}/key/{name}")).toEqual(["kms", "key"]);
    expect(pathOf("DELETE /{mount}/template/{name}", { mount: "teams/transform", name: "ssn" })).toBe("teams/transform/template/ssn");
  });

  it("are no route without a method and a path from its slash", () => {
    expect(parseRoute("/ping")).toBeUndefined();
    expect(parseRoute("GET ping")).toBeUndefined();
    expect(routeTarget("transform/template/{name}")).toBe("transform/template/{name}");
  });

  it("give every path-keyed kind an id form whose parameters its inputs fill, and back", async () => {
    for (const kind of KIND_NAMES) {
      const def = (await kindDefinition(kind))!;
      const form = pathForm(def);
      if (form === undefined) continue;
      const params = Object.fromEntries(routeParams(form).map((p) => [p, `v-${p}`]));
      const id = pathOf(def.path!.route, params);
      expect(id, kind).not.toMatch(/[{}]/);
      expect(inputsFromPath(def, id), kind).toEqual(Object.fromEntries(Object.entries(params).map(([p, v]) => [def.path!.inputs?.[p] ?? p, v])));
    }
  });
});
