// The program of bench/bigstack.ts, copied into an installed project: `count` transform alphabets,
// of bigstack:side `ours`, or of the trivial provider of trivial.js sending the same requests
// (bigstack:profile), `inline` (its text captured in each resource's state) or `module` (installed
// under node_modules as bench-trivial: each resource's state holds a require, as ours does).
"use strict";
const pulumi = require("@pulumi/pulumi");
const svc = require("pulumi-svc");

const cfg = new pulumi.Config("bigstack");
const count = cfg.requireNumber("count");
const prefix = cfg.require("prefix");
const side = cfg.require("side");

if (side === "ours") {
  for (let i = 0; i < count; i++) new svc.secrets.transform.Alphabet(`${prefix}-${i}`, { name: `${prefix}-${i}`, alphabet: "0123456789" });
} else {
  // The module reads its profile from BENCH_PROFILE, set by the bench for the program and the host.
  const provider = side === "module" ? require("bench-trivial") : require("./trivial").trivialProvider(JSON.parse(cfg.require("profile")));
  for (let i = 0; i < count; i++) new pulumi.dynamic.Resource(provider, `${prefix}-${i}`, { name: `${prefix}-${i}`, alphabet: "0123456789" });
}
