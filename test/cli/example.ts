// One example's lifecycles (test/cli/lifecycle.ts), for its test file test/cli/examples/<name>.test.ts:
// under the real Pulumi CLI with Pulumi's official language host, as docs/examples.md runs it (from
// its own folder), and through the engine double (src/engine). Each step checks what
// examples/<name>/cli.json expects and what the example's file adds; then the two sides must have
// planned and done the same. Our language host's lifecycle must give what the official host's gave
// (recorded in SVC_EXAMPLE_TRACES; .ci/run's combination 2 runs ours), and a failing preview must
// fail alike under both hosts.
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { needsPostgres } from "../support/postgres";
import { requireReal, requiredButMissing } from "../support/real";
import { CliStack, cliMissing, cliVersion, describeCli, hostMissing, langHost, sdkVersion } from "./cli";
import { examples, prepareExample } from "./expectations";
import { lifecycle, type ExampleChecks, type Lifecycle, type Trace } from "./lifecycle";
import { CliSide, DoubleSide } from "./sides";
import { useEmulator } from "../support/emulator";

/**
 * Where the official host's lifecycle of each example is kept (`<name>.json`) for our host's to be
 * compared with: .ci/run sets it for both combinations.
 */
const traces = process.env.SVC_EXAMPLE_TRACES;

/** The official host's recorded lifecycle of the example, or why there is none. */
function officialTrace(name: string): { under: string; trace: Trace } | string {
  if (!traces) return "SVC_EXAMPLE_TRACES is not set: the official host's lifecycle of the example is recorded there (.ci/run's combination 1, or a run under SVC_LANGHOST=official)";
  const file = path.join(traces, `${name}.json`);
  if (!fs.existsSync(file)) return `no ${file}: the official host's lifecycle of examples/${name} did not run to the end with SVC_EXAMPLE_TRACES set`;
  return JSON.parse(fs.readFileSync(file, "utf8")) as { under: string; trace: Trace };
}

/**
 * Registers the example's lifecycles in the calling test file, with an emulator of its own.
 * `typeCheck`: the CLI's ts-node type-checks the program, as for a user (CliStack's `typeCheck`).
 */
export function describeExample(name: string, checks: ExampleChecks, options: { typeCheck?: boolean } = {}): void {
  const example = examples().find((e) => e.name === name);
  const exp = example?.expectations;
  if (!exp) {
    // A failing test, not a throw while the file loads: it names the problem where CI lists failures.
    it(`examples/${name}/cli.json is of the shape docs/contributing.md gives`, () => {
      expect(example?.problem ?? `examples/${name} is no example`).toBe("");
    });
    return;
  }
  // A second secrets cluster for the replication example; the others use cluster 0 only. Each
  // lifecycle resets both when it starts (prepareExample), and names them in stack config.
  const { emu } = useEmulator({ clusters: 2, reset: false, env: false });
  const emulator = () => {
    if (emu.url === undefined) throw new Error("the emulator is made in beforeAll");
    return emu;
  };
  const hasStep2 = fs.existsSync(path.join(root, "examples", name, "step2"));
  const common = { exp, emu: emulator, prepare: () => prepareExample(exp, emulator()), hasStep2, checks };

  describe(`examples/${name}`, () => {
    // Only an example with a database of its own needs PostgreSQL (it starts one in its first step).
    if (exp.postgres) needsPostgres();
    let cli: Lifecycle | undefined;

    describeCli(`under the real Pulumi CLI (${langHost === "official" ? "Pulumi's official language host" : "our language host"})`, () => {
      cli = lifecycle({ ...common, kind: "cli", makeSide: (p) => CliSide.create(exp.project, name, p, options) });
    });

    // Combination 2 of CI sets SVC_EXAMPLES_CLI_ONLY: the double and the comparison ran in
    // combination 1. Left out, it still shows, as a skip .ci/allowed-skips.json allows there only.
    if (process.env.SVC_EXAMPLES_CLI_ONLY === "1") it.skip("through the engine double: left out under SVC_EXAMPLES_CLI_ONLY=1 (combination 1 runs it)", () => {});
    else describe("through the engine double", () => {
      const double = lifecycle({ ...common, kind: "double", makeSide: async (p) => new DoubleSide(name, exp.project, p) });

      it("planned and did what the real CLI did: operations, their order, outputs, refreshes and states", (ctx) => {
        // Without the CLI its suite says so, and the comparison skips (or fails under SVC_REQUIRE_REAL).
        const missing = cliMissing(langHost);
        if (missing && requireReal) throw requiredButMissing(missing);
        if (missing) ctx.skip(missing);
        expect(cli!.done() && double.done(), "both lifecycles ran to the end").toBe(true);
        expect(Object.keys(double.trace).sort()).toEqual(Object.keys(cli!.trace).sort());
        for (const k of Object.keys(cli!.trace)) expect(double.trace[k], `${name}: ${k}`).toEqual(cli!.trace[k]);
        // Not vacuous: every example creates, and deletes on destroy.
        expect(Object.keys(cli!.trace["destroy: operations"] as object).length).toBeGreaterThan(0);
      });
    });

    // Our host against Pulumi's. The lifecycles: .ci/run's combination 1 records the official
    // host's (SVC_EXAMPLE_TRACES), and combination 2, whose lifecycle above runs under ours (with
    // the newest CLI and SDK), compares its own with it. A failing preview: both hosts under the
    // one CLI the official host pairs with (combination 1).
    const oursTitle = "under the real Pulumi CLI with our language host";
    if (langHost === "ours") {
      describe(oursTitle, () => {
        it("gives what Pulumi's official host gave (its lifecycle recorded in SVC_EXAMPLE_TRACES): plans, operations, order, outputs and states", (ctx) => {
          const recorded = officialTrace(name);
          if (typeof recorded === "string") {
            if (requireReal) throw requiredButMissing(recorded);
            ctx.skip(recorded);
            return;
          }
          expect(cli?.done(), "the lifecycle above ran to the end").toBe(true);
          const keys = Object.keys(recorded.trace);
          expect(keys.length).toBeGreaterThan(5);
          expect(Object.keys(cli!.trace).sort()).toEqual([...keys].sort());
          for (const k of keys) expect(cli!.trace[k], `${name}: ${k} (the official host's under ${recorded.under})`).toEqual(recorded.trace[k]);
        });
        it.skip("fails as Pulumi's official host fails: left out under SVC_LANGHOST=ours (the official host at hand pairs with the pinned CLI only)", () => {});
      });
    } else {
      if (traces) {
        afterAll(() => {
          // Only a whole lifecycle: after a failed step, combination 2's comparison fails for want of it.
          if (!cli?.done()) return;
          fs.mkdirSync(traces, { recursive: true });
          const under = `CLI ${cliVersion()}, @pulumi/pulumi ${sdkVersion()}, Node ${process.version}`;
          fs.writeFileSync(path.join(traces, `${name}.json`), JSON.stringify({ under, trace: cli.trace }));
        });
      }
      const oursMissing = cliMissing("official") ?? hostMissing("ours");
      if (oursMissing) {
        it(`${oursTitle}: cannot run (${oursMissing})`, (ctx) => {
          if (requireReal) throw requiredButMissing(oursMissing);
          ctx.skip(oursMissing);
        });
      } else {
        describe(oursTitle, () => {
          it("fails as Pulumi's official host fails: a preview without the secrets service's token", async () => {
            // The check of each resource on it names the missing setting (a program that throws is
            // test/cli/hosts.test.ts's: the SDK takes seconds of CPU to print one).
            const prepared = await prepareExample(exp, emulator());
            const secretConfig = Object.fromEntries(Object.entries(prepared.secretConfig).filter(([k]) => k !== "svc:secretsToken"));
            const seen: Record<string, { failed: boolean; errors: string[] }> = {};
            try {
              for (const host of ["official", "ours"] as const) {
                const s = await CliStack.create({ project: exp.project, program: { example: name }, host, config: prepared.config, secretConfig });
                try {
                  const r = await s.run(["preview", "--json"]);
                  const printed = JSON.parse(r.stdout) as { diagnostics?: { severity: string; message: string }[] };
                  // The engine stops at the first failed check, and which resource registers first is
                  // a race: the message, not the resource, is compared.
                  const errors = (printed.diagnostics ?? []).filter((d) => d.severity === "error")
                    .map((d) => d.message.replace(/pulumi-nodejs:dynamic\/\S+ resource '[^']+'/g, "<resource>").trim());
                  seen[host] = { failed: r.code !== 0, errors };
                } finally {
                  s.remove();
                }
              }
            } finally {
              await prepared.close();
            }
            expect(seen.ours).toEqual(seen.official);
          });
        });
      }
    }
  });
}
