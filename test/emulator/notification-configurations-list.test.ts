import { beforeAll, describe, expect, test } from "vitest";
import { bearer } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";

const { emu } = useEmulator({ reset: false });
const ids: string[] = [];

beforeAll(async () => {
  for (let i = 0; i < 15; i++) {
    const res = await call("POST", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, {
      headers: bearer(emu.tokens.runAdmin),
      body: { data: { type: "notification-configurations", attributes: { name: `n${i}`, "destination-type": "generic", url: "https://h.example.com/" } } },
    });
    ids.push(res.json.data.id);
  }
});

const list = (query: string) => call("GET", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations${query}`, { headers: bearer(emu.tokens.runAdmin) });

describe("list", () => {
  test("without page parameters: everything, in creation order, no pagination meta", async () => {
    const res = await list("");
    expect(res.status).toBe(200);
    expect(res.json.data.map((d: { id: string }) => d.id)).toEqual(ids);
    expect(res.json.meta).toBeUndefined();
  });

  test("percent-encoded brackets paginate", async () => {
    const res = await list("?page%5Bnumber%5D=2&page%5Bsize%5D=4");
    expect(res.status).toBe(200);
    expect(res.json.data.map((d: { id: string }) => d.id)).toEqual(ids.slice(4, 8));
    expect(res.json.meta.pagination).toEqual({ "current-page": 2, "prev-page": 1, "next-page": 3, "total-pages": 4, "total-count": 15, "page-size": 4 });
    const base = `/api/v2/workspaces/${emu.workspaceId}/notification-configurations?page%5Bnumber%5D=`;
    expect(res.json.links).toEqual({ self: `${base}2&page%5Bsize%5D=4`, first: `${base}1&page%5Bsize%5D=4`, prev: `${base}1&page%5Bsize%5D=4`, next: `${base}3&page%5Bsize%5D=4`, last: `${base}4&page%5Bsize%5D=4` });
  });

  test("raw brackets work too; page[size] alone defaults the number to 1", async () => {
    const res = await list("?page[size]=10");
    expect(res.json.data).toHaveLength(10);
    expect(res.json.meta.pagination["current-page"]).toBe(1);
    expect(res.json.meta.pagination["prev-page"]).toBeNull();
    expect(res.json.links.prev).toBeNull();
  });

  test("page[number] alone uses the default size 20", async () => {
    const res = await list("?page%5Bnumber%5D=1");
    expect(res.json.data).toHaveLength(15);
    expect(res.json.meta.pagination).toEqual({ "current-page": 1, "prev-page": null, "next-page": null, "total-pages": 1, "total-count": 15, "page-size": 20 });
  });

  test("last page and beyond", async () => {
    expect((await list("?page%5Bnumber%5D=4&page%5Bsize%5D=4")).json.data.map((d: { id: string }) => d.id)).toEqual(ids.slice(12));
    const beyond = await list("?page%5Bnumber%5D=9&page%5Bsize%5D=4");
    expect(beyond.json.data).toEqual([]);
    expect(beyond.json.meta.pagination["next-page"]).toBeNull();
  });

  test("page size is capped at 100", async () => {
    expect((await list("?page%5Bsize%5D=500")).json.meta.pagination["page-size"]).toBe(100);
  });

  test.each(["page%5Bnumber%5D=0", "page%5Bsize%5D=abc", "page%5Bnumber%5D=-1"])("%s → 422 naming the parameter", async (q) => {
    const res = await list(`?${q}`);
    expect(res.status).toBe(422);
    expect(res.json.errors[0].source.parameter).toMatch(/^page\[(number|size)\]$/);
  });
});
