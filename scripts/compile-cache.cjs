// Preloaded by .ci/run into every Node process of both combinations (NODE_OPTIONS=--require).
//
// On every Node: each process starts with the V8 flag that @pulumi/pulumi's closure serializer
// sets while a program runs (--allow-natives-syntax). V8 refuses code compiled under other flags,
// so without it a program's processes and every other (the provider host, the language host)
// each refused and compiled again, then wrote over, what the other had kept in the shared cache:
// 633 modules at each command under Node 22's NODE_COMPILE_CACHE. The flag only lets code call V8's
// intrinsics (`%Name()`), which only that serializer does, under the flag it sets anyway.
//
// On Node 20: what NODE_COMPILE_CACHE does on Node 22 (combination 2), which Node 20 lacks.
// Each Pulumi command starts a program and a provider host, and each loads @pulumi/pulumi,
// TypeScript and the package anew: compiling that code is a fifth of a command's CPU. A CommonJS
// module's compiled code is kept in the folder NODE_COMPILE_CACHE names (one file per module,
// text and V8 flags) and handed back to V8 when any process loads the same text again. What
// runs is the same: the same function around the module, the same positions in stack traces;
// what V8 cannot take (ESM, a syntax error, a possible import() call) is left to Node.
// docs/contributing.md#ci
"use strict";
const Module = require("module");
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const v8 = require("v8");
const vm = require("vm");

const dir = process.env.NODE_COMPILE_CACHE;
// Node compiles a module as a function's body; a script needs the function's head in front: on a
// line of its own, which the line offset takes back, so that every position is the file's.
const HEAD = "(function (exports, require, module, __filename, __dirname) {\n";
const TAIL = "\n})";
// V8 drops a script's dynamic-import callback when the script comes from cached data, so a module
// that may call import() is left to Node. The word in a comment or a string does not count (a
// line's text before it is scanned for an open string or a comment; TypeScript's messages name
// it), unless the module runs text as code (@pulumi/pulumi imports a program through eval).
const IMPORT_CALL = /(^|[^\w$.])import\s*\(/g;
const RUNS_TEXT = /\beval\s*\)?\s*\(|\bFunction\s*\(/;
function mayImport(content) {
  if (RUNS_TEXT.test(content)) return content.includes("import");
  for (const m of content.matchAll(IMPORT_CALL)) {
    const at = m.index + m[1].length;
    const start = content.lastIndexOf("\n", at) + 1;
    if (!inStringOrComment(content.slice(start, at))) return true;
  }
  return false;
}
function inStringOrComment(before) {
  if (/^\s*(\*|\/\*)/.test(before)) return true;
  let quote = "";
  for (let i = 0; i < before.length; i++) {
    const c = before[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === "'" || c === '"' || c === "`") quote = c;
    else if (c === "/" && before[i + 1] === "/") return true;
  }
  return quote !== "";
}

const PROGRAM_FLAG = "--allow-natives-syntax";
v8.setFlagsFromString(PROGRAM_FLAG);

if (dir && typeof Module.enableCompileCache !== "function") {
  // Any other flag set later is part of the key: V8 would refuse code compiled under other flags.
  // The program's, set again by @pulumi/pulumi, changes nothing: every process has it already.
  let flags = `${process.execArgv.join(" ")}\0${process.env.NODE_OPTIONS ?? ""}`;
  const setFlags = v8.setFlagsFromString;
  v8.setFlagsFromString = function (f) {
    if (f !== PROGRAM_FLAG) flags += `\0${f}`;
    return setFlags.call(this, f);
  };
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename, format) {
    if ((format !== undefined && format !== "commonjs") || !/\.c?js$/.test(filename)) return compile.apply(this, arguments);
    // The key is the text, not the file's time: dist/ is rebuilt while the cache lives.
    const file = path.join(dir, crypto.createHash("sha1").update(filename).update("\0").update(flags).update("\0").update(content).digest("hex"));
    let cachedData;
    try {
      cachedData = fs.readFileSync(file);
    } catch {
      // not cached yet
    }
    // A text is scanned once: an empty entry marks one left to Node (the scan costs a process
    // that loads @pulumi/pulumi about 20 ms, as much as reading the cache).
    if (cachedData?.length === 0) return compile.apply(this, arguments);
    if (cachedData === undefined && mayImport(content)) {
      keep(file, Buffer.alloc(0));
      return compile.apply(this, arguments);
    }
    let script;
    try {
      // A hashbang is valid only at a script's start: the same two characters as a comment.
      const body = content.startsWith("#!") ? `//${content.slice(2)}` : content;
      script = new vm.Script(HEAD + body + TAIL, { filename, cachedData, lineOffset: -1 });
    } catch {
      return compile.apply(this, arguments);
    }
    const mod = this;
    const require = (id) => mod.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
    require.main = process.mainModule;
    require.extensions = Module._extensions;
    require.cache = Module._cache;
    const wrapper = script.runInThisContext({ displayErrors: true });
    const result = wrapper.call(mod.exports, mod.exports, require, mod, filename, path.dirname(filename));
    // Written after the module ran, so the functions its loading compiled are in it too.
    if (cachedData === undefined || script.cachedDataRejected) keep(file, script.createCachedData());
    return result;
  };
}

function keep(file, data) {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch {
    // a full disk or a read-only folder costs the next process a compile, nothing more
  }
}

// For test/unit/compile-cache.test.ts.
module.exports = { mayImport };
