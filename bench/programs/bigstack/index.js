// The program of bench/bigstack.ts, copied into an installed project: `count` transform alphabets,
// either ours (bigstack:side=ours) or of a trivial dynamic provider (side=trivial) that sends, per
// create, read and delete, the very requests ours sent in the bench's probe run (bigstack:profile),
// with node's http client and nothing else: no validation, no retries, no limit but its sockets.
"use strict";
const pulumi = require("@pulumi/pulumi");
const svc = require("pulumi-svc");

const cfg = new pulumi.Config("bigstack");
const count = cfg.requireNumber("count");
const prefix = cfg.require("prefix");

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

if (cfg.require("side") === "ours") {
  for (let i = 0; i < count; i++) new svc.secrets.transform.Alphabet(`${prefix}-${i}`, { name: `${prefix}-${i}`, alphabet: "0123456789" });
} else {
  const profile = JSON.parse(cfg.require("profile"));
  const provider = {
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
  for (let i = 0; i < count; i++) new pulumi.dynamic.Resource(provider, `${prefix}-${i}`, { name: `${prefix}-${i}`, alphabet: "0123456789" });
}
