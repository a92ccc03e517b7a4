import { configDefaults, defineConfig } from "vitest/config";

// The developer's inner loop (`npm run test:fast`): everything that needs neither a deployment
// through the engine double or the real CLI nor a packed tarball.
const fast = ["test/unit", "test/integration", "test/emulator", "test/protocol", "test/docs"];

export default defineConfig({
  test: {
    // No include here: a project that extends this config would add its own to it.
    setupFiles: ["test/support/setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default"],
    // `npm test` (CI) runs both; `vitest run --project fast` only the first.
    projects: [
      { extends: true, test: { name: "fast", include: fast.map((dir) => `${dir}/**/*.test.ts`) } },
      // program, engine, faults, cli (the real Pulumi CLI), package
      { extends: true, test: { name: "slow", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...fast.map((dir) => `${dir}/**`)] } },
    ],
  },
});
