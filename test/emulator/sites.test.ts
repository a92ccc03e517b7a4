import { describe, expect, test } from "vitest";
import { parseArgs, UsageError } from "../../src/emulator/cli";
import { checkAllowedHost, hostRefusal, sitesOf, writeRefusal } from "../../src/emulator/transport/sites";

// The rules of src/emulator/transport/sites.ts one by one; control-isolation.test.ts plays them against a
// running emulator and ui-attack.test.ts from pages of other sites in Chromium.

const JSON_TYPE = { "content-type": "application/json" };

describe("Host: the control endpoints answer the emulator's own names only", () => {
  const sites = sitesOf("127.0.0.1", ["emu.internal"], 8300);

  test.each([
    ["its address and port", "127.0.0.1:8300"],
    ["localhost with its port", "localhost:8300"],
    ["localhost with a final dot", "localhost.:8300"],
    ["[::1] with its port", "[::1]:8300"],
    ["an allowed name, with any port (a proxy, a port forward)", "emu.internal:9000"],
    ["an allowed name in capitals, without a port", "EMU.Internal"],
    ["no Host at all (HTTP/1.0 tools)", undefined],
  ])("%s is answered", (_label, host) => {
    expect(hostRefusal(sites, host === undefined ? {} : { host })).toBeUndefined();
  });

  test.each([
    ["a rebound name", "evil.example:8300", "host evil.example", "evil.example"],
    ["a subdomain of an allowed name", "a.emu.internal:8300", "host a.emu.internal", "a.emu.internal"],
    ["a name that merely starts with localhost", "localhost.evil.example", "host localhost.evil.example", "localhost.evil.example"],
    ["another address of the machine", "10.0.0.7:8300", "host 10.0.0.7", "10.0.0.7"],
    ["a loopback name with another port", "localhost:9000", "host localhost:9000", "localhost"],
    ["its address without a port (80)", "127.0.0.1", "host 127.0.0.1:80", "127.0.0.1"],
  ])("%s gets 403 naming --allowed-host", (_label, host, what, name) => {
    const refused = hostRefusal(sites, { host });
    expect(refused?.status).toBe(403);
    expect(JSON.parse(String(refused!.body)).error).toBe(
      `${what} is not allowed on /_emulator (a page of another site may be behind it): start the emulator with --allowed-host ${name} (startEmulator option allowedHosts) to allow it`,
    );
  });

  test("the name the emulator listens on is its own, with its port", () => {
    expect(hostRefusal(sitesOf("devbox.lan", [], 8300), { host: "devbox.lan:8300" })).toBeUndefined();
    expect(hostRefusal(sitesOf("[::1]", [], 8300), { host: "[::1]:8300" })).toBeUndefined();
    expect(hostRefusal(sitesOf("devbox.lan", [], 8300), { host: "devbox.lan:8301" })?.status).toBe(403);
  });
});

describe("writes: no foreign Origin, no body other than JSON", () => {
  const own = { host: "127.0.0.1:8300" };

  test.each([
    ["a tool's request with no Origin and a JSON body", { ...own, ...JSON_TYPE }, "{}"],
    ["JSON with a charset", { ...own, "content-type": "Application/JSON; charset=utf-8" }, "{}"],
    ["the page's own origin", { ...own, origin: "http://127.0.0.1:8300", ...JSON_TYPE }, "{}"],
    ["the page's own origin with no body (a reset button)", { ...own, origin: "http://127.0.0.1:8300" }, ""],
    ["no body and no content type", own, ""],
  ])("%s is accepted", (_label, headers, body) => {
    expect(writeRefusal(headers, Buffer.from(body))).toBeUndefined();
  });

  test.each([
    ["another site", "https://evil.example"],
    ["another port of this machine", "http://127.0.0.1:3000"],
    ["an opaque origin", "null"],
  ])("an Origin of %s gets 403, whatever the body", (_label, origin) => {
    for (const body of ["", "{}"]) {
      const refused = writeRefusal({ ...own, origin, ...JSON_TYPE }, Buffer.from(body));
      expect(refused?.status).toBe(403);
      expect(JSON.parse(String(refused!.body)).error).toBe(
        `origin ${origin} may not change the emulator: control requests that change state come from its own page or from tools that send no Origin`,
      );
    }
  });

  test.each([
    ["text/plain", "text/plain;charset=UTF-8"],
    ["a form", "application/x-www-form-urlencoded"],
    ["multipart", "multipart/form-data; boundary=x"],
    ["none", undefined],
  ])("a body sent as %s gets 415", (label, type) => {
    const refused = writeRefusal({ ...own, ...(type === undefined ? {} : { "content-type": type }) }, Buffer.from("{}"));
    expect(refused?.status).toBe(415);
    expect(JSON.parse(String(refused!.body)).error).toBe(
      `control requests with a body must send content-type: application/json (got ${type === undefined ? "none" : type.split(";")[0]!.toLowerCase()})`,
    );
    void label;
  });
});

describe("--allowed-host", () => {
  test("is repeatable and reaches the options", () => {
    expect(parseArgs(["--allowed-host", "emu.internal", "--allowed-host=proxy.lan"])).toEqual({ allowedHosts: ["emu.internal", "proxy.lan"] });
  });

  test.each(["http://evil.example", "emu:8300", "a b", "-x", ""])("refuses %j: a host name only", (value) => {
    const parse = () => parseArgs(["--allowed-host", value]);
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(value === "" ? "--allowed-host needs a value" : `allowed host ${JSON.stringify(value)} must be a host name`);
    expect(checkAllowedHost("emu-1.internal")).toBeUndefined();
  });
});
