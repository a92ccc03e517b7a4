// Preloaded by .ci/run into every Node process of both combinations (NODE_OPTIONS=--require).
//
// On every Node: each process starts with the V8 flag that @pulumi/pulumi's closure serializer
// sets while a program runs (--allow-natives-syntax). V8 refuses code compiled under other flags,
// so without it a program's processes and every other (the provider host, the language host)
// each refused and compiled again, then wrote over, what the other had kept in the shared cache:
// 633 modules at each command under Node 22's NODE_COMPILE_CACHE. The flag only lets code call V8's
// intrinsics (`%Name()`), which only that serializer does, under the flag it sets anyway.
//
// On Node 20: what NODE_COMPILE_CACHE does on Node 22 (combination 2), which Node 20 lacks, with
// the package's own code cache for Node 20 (src/core/scriptCache.ts), in the folder
// NODE_COMPILE_CACHE names. Each Pulumi command starts a program and a provider host, and each
// loads @pulumi/pulumi, TypeScript and the package anew: compiling that code is a fifth of a
// command's CPU. Until the build has written dist/ (npm test builds first), a process runs without.
// docs/contributing.md#ci
"use strict";
const path = require("path");
const v8 = require("v8");

const PROGRAM_FLAG = "--allow-natives-syntax";
v8.setFlagsFromString(PROGRAM_FLAG);

const dir = process.env.NODE_COMPILE_CACHE;
if (dir && typeof require("module").enableCompileCache !== "function") {
  let engine;
  try {
    engine = require(path.join(__dirname, "../dist/src/core/scriptCache.js"));
  } catch {
    // dist/ not built yet, or being written.
  }
  // The program's flag, set again by @pulumi/pulumi, changes nothing: every process has it already.
  engine?.startScriptCache(dir, { inEffect: [PROGRAM_FLAG] });
}
