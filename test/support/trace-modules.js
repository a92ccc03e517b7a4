// Preloaded (NODE_OPTIONS=--require) into the engine double's processes by
// test/program/legacy-state.test.ts: appends to $PULUMI_SVC_TRACE_MODULES one JSON line for every
// resolution of pulumi-svc's runtime entry or of a generated provider module, and for every such
// request that fails, with the process's main script, so the test can tell which build the
// provider host loaded for a state's serialized providers.
"use strict";
const fs = require("node:fs");
const Module = require("node:module");

const file = process.env.PULUMI_SVC_TRACE_MODULES;
const watched = (s) => /^pulumi-svc(\/|$)|[\\/]dist[\\/]src[\\/](core[\\/]runtime(\.js)?$|providers[\\/])/.test(s);
const original = Module._resolveFilename;

if (file) {
  Module._resolveFilename = function (request, ...rest) {
    let resolved;
    try {
      resolved = original.call(this, request, ...rest);
    } catch (err) {
      if (watched(request)) fs.appendFileSync(file, JSON.stringify({ main: process.argv[1], request, error: err.code }) + "\n");
      throw err;
    }
    if (watched(request) || watched(resolved)) fs.appendFileSync(file, JSON.stringify({ main: process.argv[1], request, resolved }) + "\n");
    return resolved;
  };
}
