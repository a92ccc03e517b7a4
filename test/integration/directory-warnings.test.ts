import http from "node:http";
import type { AddressInfo } from "node:net";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import * as directory from "../../src/secrets/directory";

/**
 * A service that answers every rotation with 200 and the "already in progress" warning, so the
 * provider's handling is tested without racing two real rotations.
 */
let server: http.Server;
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const warning = req.url?.includes("rotate-root") ? "Root password rotation is already in progress." : "Role password rotation is already in progress.";
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ request_id: "r", lease_id: "", renewable: false, lease_duration: 0, data: null, wrap_info: null, warnings: [warning], auth: null }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.SVC_SECRETS_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  process.env.SVC_SECRETS_TOKEN = "stub-token";
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it("a 200 with a warning resolves (not an error) and the warning goes to the Pulumi log as a warning", async () => {
  const warn = vi.spyOn(pulumi.log, "warn").mockImplementation(() => Promise.resolve());
  const error = vi.spyOn(pulumi.log, "error").mockImplementation(() => Promise.resolve());
  expect(await directory.rotateRoot({ mount: "ad" })).toEqual({ rotated: false, warnings: ["Root password rotation is already in progress."] });
  expect(await directory.rotateRole({ name: "app" })).toEqual({ rotated: false, warnings: ["Role password rotation is already in progress."] });
  expect(warn.mock.calls.map((c) => c[0])).toEqual([
    "pulumi-svc: rotateRoot: Root password rotation is already in progress.",
    "pulumi-svc: rotateRole app: Role password rotation is already in progress.",
  ]);
  expect(error).not.toHaveBeenCalled();
  // rotateRole reads the role first, to tell a rotation whose response was lost from none.
  expect(seen).toEqual(["POST /v1/ad/rotate-root", "GET /v1/directory/roles/app", "POST /v1/directory/rotate-role/app"]);
  warn.mockRestore();
  error.mockRestore();
});
