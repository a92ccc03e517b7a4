// The trivial dynamic provider of bench/bigstack.ts: per create, read and delete it sends the very
// requests ours sent in the bench's probe run (the profile), with node's http client and nothing
// else: no validation, no retries, no limit but its sockets. The program uses it two ways: captured
// in a closure (as an inline provider is usually written) and installed as a module (as ours is).
"use strict";

/** Sends the steps one after another for the object `name`; any status but 2xx or 404 fails. */
async function replay(steps, name, alphabet) {
  const http = require("http");
  // One keep-alive agent per host process, as a hand-written provider would keep a client.
  const agent = globalThis.benchAgent || (globalThis.benchAgent = new http.Agent({ keepAlive: true, maxSockets: 16 }));
  const origin = new URL(process.env.BENCH_ORIGIN);
  for (const step of steps) {
    const listed = step.method === "LIST" && step.query.list !== undefined;
    const query = new URLSearchParams(step.query).toString();
    const body = step.method === "POST" || step.method === "PUT" ? JSON.stringify({ alphabet }) : undefined;
    await new Promise((resolve, reject) => {
      const req = http.request({
        host: origin.hostname, port: origin.port, agent, method: listed ? "GET" : step.method,
        path: step.path.replace("{name}", encodeURIComponent(name)) + (query ? `?${query}` : ""),
        headers: { "x-svc-token": process.env.BENCH_SECRETS_TOKEN, ...(body ? { "content-type": "application/json" } : {}) },
      }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => { text += chunk; });
        res.on("end", () => {
          if (res.statusCode >= 300 && res.statusCode !== 404) return reject(new Error(`${step.method} ${step.path}: ${res.statusCode} ${text}`));
          if (text) JSON.parse(text);
          resolve();
        });
      });
      req.on("error", reject);
      req.end(body);
    });
  }
}

/** The provider for a profile `{ up, refresh, destroy }` of requests per object. */
function trivialProvider(profile) {
  return {
    async create(inputs) {
      await replay(profile.up, inputs.name, inputs.alphabet);
      return { id: inputs.name, outs: inputs };
    },
    async read(id, props) {
      await replay(profile.refresh, id, props.alphabet);
      return { id, props };
    },
    async delete(id, props) {
      await replay(profile.destroy, id, props.alphabet);
    },
  };
}

module.exports = { trivialProvider };
