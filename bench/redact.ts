/**
 * Redaction cost against the number of registered secrets: the same error message redacted with
 * 0, 1,000 and 10,000 secrets of 40 characters registered, as a ratio to the cost with none (same
 * run); and the heap the index of those 10,000 secrets takes.
 */
import { randomBytes } from "crypto";
import { setFlagsFromString } from "v8";
import { runInNewContext } from "vm";
import { NotFoundError } from "../src/http";
import * as redaction from "../src/http/redact";
import { redact, registerSecret } from "../src/http/redact";

// The secret fields every operation knows (src/core/context.ts loads them), so their look-up is
// part of the cost measured here. (Absent from builds older than by-field redaction.)
try {
  require("../src/core/secretFields");
} catch {
  // measuring an older build
}

const MESSAGE = "GET /notification-configurations/nc-4kz9T2p7QmX1aB3c: 404 Not Found: not found or unauthorized; " +
  "the server echoed {\"token\":\"hook-token-not-registered\",\"url\":\"https://hooks.example.com/ci\"}";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
}

// CPU time of this process, not wall time: on a shared machine the wall clock also counts the time
// other processes held the core.
function once(n: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    redact(MESSAGE);
    void new NotFoundError({ service: "runs", method: "GET", path: "/notification-configurations/x", status: 404, messages: ["not found"] });
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

// The median of several rounds: the machine is shared, and one slow round says nothing.
function perCall(n: number): number {
  const times = Array.from({ length: 7 }, () => once(n / 7)).sort((a, b) => a - b);
  return times[3];
}

// 40 characters, as a service token or a generated password.
const secret = () => `hook-${randomBytes(26).toString("base64url")}`;

const rounds = 35_000;
once(2_000); // warm up
const base = perCall(rounds);
const rows: [string, number][] = [["0 secrets", base]];
const values: string[] = [];
for (let i = 0; i < 10_000; i++) values.push(secret());
const before = heapUsed();
let registered = 0;
for (const target of [1_000, 10_000]) {
  for (; registered < target; registered++) registerSecret(values[registered]);
  once(2_000); // indexes what was registered, then warms up
  rows.push([`${target.toLocaleString("en")} secrets`, perCall(rounds)]);
}
const indexed = heapUsed() - before;
console.log("redaction: one redact() and one NotFoundError per call");
for (const [name, us] of rows) console.log(`  ${name.padEnd(16)} ${us.toFixed(2)} µs/call  ${(us / base).toFixed(2)}x the cost with none`);
const size = (redaction as { indexSize?: () => { runs: number; bytes: number } }).indexSize?.();
console.log(`  heap for 10,000 secrets of 40 characters, registered and indexed: ${(indexed / 1024 / 1024).toFixed(1)} MB` +
  (size ? ` (of which the run index ${(size.bytes / 1024 / 1024).toFixed(1)} MB for ${size.runs.toLocaleString("en")} runs)` : ""));
