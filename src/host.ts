/**
 * `pulumi-svc/runtime` as a provider host loads it: the runtime entry (src/runtime.ts) and the
 * modules a first Check loads, from the file the build packs them in (src/core/pack.ts) where
 * that file is there and its modules are the installed ones, else from their own files. Either
 * way the exports are the runtime entry's own, as `require` of dist/src/runtime.js gives them.
 */
// First, before anything else loads: the pack (or each file) is compiled once per text.
import "./core/startCompileCache";
import * as path from "node:path";
import { loadPack } from "./core/pack";
import type * as Runtime from "./runtime";

export = (loadPack(path.join(__dirname, "runtime.pack.js")) ?? require("./runtime")) as typeof Runtime;
