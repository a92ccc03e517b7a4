// The program of test/cli/engine-killed.test.ts: says which process runs it and which host started
// it, then runs until it is stopped, as a program waiting on a slow function call would.
"use strict";
const fs = require("node:fs");
const pulumi = require("@pulumi/pulumi");

const file = new pulumi.Config("engineKilled").require("pidFile");
fs.writeFileSync(`${file}.tmp`, JSON.stringify({ program: process.pid, host: process.ppid }));
fs.renameSync(`${file}.tmp`, file);
setInterval(() => undefined, 1 << 30);
