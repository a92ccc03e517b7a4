import { describe, expect, it } from "vitest";
import {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  SvcError,
  TransportError,
  errorForStatus,
  extractMessages,
  isSvcError,
  redact,
  redactOwn,
  registerSecret,
} from "../../src/http";
import { registerOwnName } from "../../src/http/redact";

describe("redact", () => {
  it("removes every occurrence of a registered secret", () => {
    registerSecret("s3cr3t-value-1");
    expect(redact("a s3cr3t-value-1 b s3cr3t-value-1")).toBe("a [REDACTED] b [REDACTED]");
  });

  it("removes whatever follows Bearer, registered or not", () => {
    expect(redact("Authorization: Bearer abc.def-ghi, next")).toBe("Authorization: Bearer [REDACTED], next");
    expect(redact('{"h":"bearer xyz"}')).toBe('{"h":"bearer [REDACTED]"}');
  });

  it("removes the JSON-escaped and percent-encoded forms", () => {
    const secret = 'pa"ss\\wo rd/9';
    registerSecret(secret);
    expect(redact(JSON.stringify({ password: secret }))).toBe('{"password":"[REDACTED]"}');
    expect(redact(`/roles/${encodeURIComponent(secret)}`)).toBe("/roles/[REDACTED]");
  });

  it("prefers the longest secret and ignores empty ones", () => {
    registerSecret("");
    registerSecret("overlap-ab");
    registerSecret("overlap-abcdef");
    expect(redact("x overlap-abcdef y")).toBe("x [REDACTED] y");
    expect(redact("nothing here")).toBe("nothing here");
  });
});

describe("error classes", () => {
  it("maps statuses to classes and codes", () => {
    const table: Array<[number, unknown, string]> = [
      [400, InvalidInputError, "invalid_input"],
      [401, ForbiddenError, "forbidden"],
      [403, ForbiddenError, "forbidden"],
      [404, NotFoundError, "not_found"],
      [409, ConflictError, "conflict"],
      [422, InvalidInputError, "invalid_input"],
      [429, RateLimitedError, "rate_limited"],
      [500, ServerError, "server"],
      [503, ServerError, "server"],
      [302, ServerError, "server"],
    ];
    for (const [status, cls, code] of table) {
      const e = errorForStatus(status, { service: "runs", method: "GET", path: "/a" });
      expect(e).toBeInstanceOf(cls as typeof SvcError);
      expect(e).toBeInstanceOf(Error);
      expect([status, e.code]).toEqual([status, code]);
      expect(e.status).toBe(status);
    }
  });

  it("formats one line: METHOD path: status reason: messages", () => {
    const e = new ConflictError({ service: "runs", method: "POST", path: "/runs/r1/actions/apply", status: 409, messages: ["run is\nnot confirmable", "again"] });
    expect(e.message).toBe("POST /runs/r1/actions/apply: 409 Conflict: run is not confirmable; again");
    expect(e.name).toBe("ConflictError");
    expect(e.stack).toContain("ConflictError: POST /runs/r1/actions/apply: 409 Conflict");
  });

  it("omits the message part when the server gave none", () => {
    const e = new NotFoundError({ service: "secrets", method: "GET", path: "/transform/role/x", status: 404 });
    expect(e.message).toBe("GET /transform/role/x: 404 Not Found");
    expect(e.messages).toEqual([]);
  });

  it("builds local InvalidInputError from problems without a request", () => {
    registerSecret("local-secret-99");
    const e = new InvalidInputError([
      { path: "urls[0]", message: "must be http or https" },
      { path: "token", message: "local-secret-99 is too short" },
    ]);
    expect(e.code).toBe("invalid_input");
    expect(e.status).toBeUndefined();
    expect(e.service).toBeUndefined();
    expect(e.method).toBe("");
    expect(e.path).toBe("");
    expect(e.problems).toEqual([
      { path: "urls[0]", message: "must be http or https" },
      { path: "token", message: "[REDACTED] is too short" },
    ]);
    expect(e.messages).toEqual(["urls[0]: must be http or https", "token: [REDACTED] is too short"]);
    expect(e.message).toBe("invalid input: urls[0]: must be http or https; token: [REDACTED] is too short");
    const withContext = new InvalidInputError([{ path: "name", message: "required" }], { service: "secrets", method: "POST", path: "/x" });
    expect(withContext.message).toBe("POST /x: invalid input: name: required");
    expect(withContext.service).toBe("secrets");
  });

  it("formats transport errors with the cause code", () => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    const e = new TransportError({ service: "runs", method: "GET", path: "/runs/x", causeCode: "ECONNREFUSED", causeMessage: cause.message, cause });
    expect(e.message).toBe("GET /runs/x: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:1");
    expect(e.causeCode).toBe("ECONNREFUSED");
    expect(e.cause).toBe(cause);
    expect(e.code).toBe("transport");
    registerSecret("tok-in-cause-31");
    const leaky = new TransportError({ method: "GET", path: "/a", causeCode: "UND_ERR_INVALID_ARG", causeMessage: "bad header tok-in-cause-31" });
    expect(leaky.message).toBe("GET /a: UND_ERR_INVALID_ARG bad header [REDACTED]");
  });

  it("never keeps a token in message, path or messages", () => {
    registerSecret("tok-in-path-77");
    const e = new ServerError({ method: "GET", path: "/x/tok-in-path-77?q=Bearer zzz", status: 500, messages: ["tok-in-path-77"] });
    expect(e.path).toBe("/x/[REDACTED]?q=Bearer [REDACTED]");
    expect(`${e.message}${e.stack}${e.messages.join()}`).not.toMatch(/tok-in-path-77|zzz/);
  });
});

describe("the package's own words stay readable (issue 44)", () => {
  it("a request line it built is never garbled by a secret that contains a piece of it; a whole secret in it still is", () => {
    registerSecret("my-config-token-5a1f");
    registerSecret("aws-east-secret-key-77");
    const e = new ConflictError({ method: "POST", path: "/registry/config/access", messages: ["registry/config/access exists"] });
    expect(e.message).toBe("POST /registry/config/access: conflict: registry/config/access exists");
    expect(new NotFoundError({ method: "DELETE", path: "/keymgmt/kms/aws-east", status: 404 }).message).toBe("DELETE /keymgmt/kms/aws-east: 404 Not Found");
    expect(new ConflictError({ method: "GET", path: "/x/my-config-token-5a1f", messages: ["named my-config-token-5a1f"] }).message)
      .toBe("GET /x/[REDACTED]: conflict: named [REDACTED]");
  });

  it("what the server sends is still masked where it echoes a secret, whole or cut short, but not where it names the program's object", () => {
    registerSecret("zq-server-echo-4411");
    registerOwnName("aws-east");
    const e = new InvalidInputError({ method: "POST", path: "/keymgmt/kms/aws-east", status: 400, messages: ["bad value zq-server-ec…", "key zq-server-echo-4411 refused", "no such provider aws-east"] });
    expect(e.messages).toEqual(["bad value [REDACTED]…", "key [REDACTED] refused", "no such provider aws-east"]);
    // The secret that starts with the name: an echo of it runs past the name and is masked.
    expect(redact("got aws-east-secret-key-77 back")).toBe("got [REDACTED] back");
    expect(redactOwn("DELETE /keymgmt/kms/aws-east")).toBe("DELETE /keymgmt/kms/aws-east");
  });

  it("a whole secret in the package's own text is masked as it is, percent-encoded, or of one repeated character", () => {
    registerSecret("own text/secret 9f2c");
    registerSecret("qqqqqqqqqqqq");
    expect(redactOwn("PUT /a/own%20text%2Fsecret%209f2c/b")).toBe("PUT /a/[REDACTED]/b");
    expect(redactOwn("named own text/secret 9f2c here")).toBe("named [REDACTED] here");
    expect(redactOwn("GET /x/qqqqqqqqqqqq")).toBe("GET /x/[REDACTED]");
    // A piece of a secret is the package's word here, never masked.
    expect(redactOwn("GET /x/own text and qqqqqq")).toBe("GET /x/own text and qqqqqq");
  });
});

describe("isSvcError", () => {
  it("checks class and optional code", () => {
    const e = new NotFoundError({ method: "GET", path: "/a", status: 404 });
    expect(isSvcError(e)).toBe(true);
    expect(isSvcError(e, "not_found")).toBe(true);
    expect(isSvcError(e, "conflict")).toBe(false);
    expect(isSvcError(new Error("x"))).toBe(false);
    expect(isSvcError(Object.assign(new Error("x"), { code: "not_found" }))).toBe(false);
    expect(isSvcError(null)).toBe(false);
    expect(isSvcError("not_found")).toBe(false);
  });

  it("recognises an error from a second copy of the module by its brand", () => {
    const foreign = Object.assign(new Error("GET /a: 404 Not Found"), { code: "not_found" });
    Object.defineProperty(foreign, Symbol.for("pulumi-svc.SvcError"), { value: true });
    expect(isSvcError(foreign, "not_found")).toBe(true);
  });
});

describe("extractMessages", () => {
  it("reads JSON:API errors with pointers, detail before title", () => {
    expect(
      extractMessages({
        errors: [
          { title: "invalid", detail: "must be http or https", source: { pointer: "/data/attributes/url" } },
          { title: "only a title" },
          { status: "422" },
        ],
      }),
    ).toEqual(["url: must be http or https", "only a title"]);
  });

  it("reads string errors and falls back to text", () => {
    expect(extractMessages({ errors: ["a", "b"] })).toEqual(["a", "b"]);
    expect(extractMessages({ message: "odd shape" })).toEqual(['{"message":"odd shape"}']);
    expect(extractMessages("line one\n  line two")).toEqual(["line one line two"]);
    expect(extractMessages(undefined)).toEqual([]);
    expect(extractMessages("y".repeat(1000))[0]).toHaveLength(301);
  });
});
