/**
 * Redaction cost against the number of registered secrets: the same error message redacted with
 * 0, 1,000 and 10,000 secrets registered, as a ratio to the cost with none (same run).
 */
import { randomBytes } from "crypto";
import { NotFoundError } from "../src/http";
import { redact, registerSecret } from "../src/http/redact";

const MESSAGE = "GET /notification-configurations/nc-4kz9T2p7QmX1aB3c: 404 Not Found: not found or unauthorized; " +
  "the server echoed {\"token\":\"hook-token-not-registered\",\"url\":\"https://hooks.example.com/ci\"}";

function perCall(n: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    redact(MESSAGE);
    void new NotFoundError({ service: "runs", method: "GET", path: "/notification-configurations/x", status: 404, messages: ["not found"] });
  }
  return Number(process.hrtime.bigint() - start) / n / 1000;
}

const rounds = 20_000;
perCall(2_000); // warm up
const base = perCall(rounds);
const rows: [string, number][] = [["0 secrets", base]];
let registered = 0;
for (const target of [1_000, 10_000]) {
  for (; registered < target; registered++) registerSecret(`hook-${randomBytes(12).toString("base64url")}`);
  rows.push([`${target.toLocaleString("en")} secrets`, perCall(rounds)]);
}
console.log("redaction: one redact() and one NotFoundError per call");
for (const [name, us] of rows) console.log(`  ${name.padEnd(16)} ${us.toFixed(2)} µs/call  ${(us / base).toFixed(2)}x the cost with none`);
