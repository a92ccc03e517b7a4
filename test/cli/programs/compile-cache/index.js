// The program of test/cli/compile-cache.test.ts: one object whose create's check reads the server.
"use strict";
const svc = require("pulumi-svc");

new svc.secrets.transform.Template("ssn", { name: "ssn", pattern: "(\\d{3})-(\\d{2})-(\\d{4})" });
