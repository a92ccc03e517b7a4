/** Rotations of the directory engine: the bind password (rotate-root) and a role's password. */
import { pick, type PlainArgsOf } from "../../core/fields";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { isAmbiguous } from "../../http";
import { fetchData } from "../pathObject";
import { mountField, type MountArgs } from "./fields";
import { directoryRoleFields } from "./role";
import { pause } from "./lending";
import { DEFAULT_DIRECTORY_MOUNT, DIRECTORY_ROUTES as R, warn, warningsOf } from "./routes";

/** What a rotation answered: `rotated` false when one was already in progress (the warning says so). */
export interface RotationResult {
  /** False when a rotation was already in progress and this call did not start one. */
  rotated: boolean;
  /** Warnings the service answered with (also logged as Pulumi warnings). */
  warnings: string[];
}

function result(status: number, body: unknown, what: string): RotationResult {
  const warnings = warningsOf(body);
  // A 200 with a warning is not a failure: the rotation already running will do the work.
  for (const w of warnings) warn(`${what}: ${w}`);
  return { rotated: status === 204 || warnings.length === 0, warnings };
}

const rootFn: FunctionDefinition<MountArgs, RotationResult> = { name: "rotateRoot", fields: mountField, sideEffects: true,
  async run(ctx, args) {
    // Nothing shows whether a root rotation whose response was lost happened, and sending it again
    // is harmless: either way the bind password ends up one that only the service knows.
    const res = await ctx.client("secrets").request({ route: R.rotate.root, params: { mount: args.mount ?? DEFAULT_DIRECTORY_MOUNT }, retry: "safe" });
    return result(res.status, res.body, "rotateRoot");
  },
};

/**
 * Gives the bind account a new password known only to the service. Afterwards the program's
 * `bindpass` is stale on purpose: the Config resource does not send it again unless you change it.
 * A rotation already in progress (the service answers 200 with a warning) is a warning in the
 * Pulumi log, not an error. No request during preview.
 */
export const rotateRoot = forms(rootFn, { argsOptional: true }).promise;

/** Output form of {@link rotateRoot}; unknown during preview. */
export const rotateRootOutput = forms(rootFn, { argsOptional: true }).output;

// Typed by its source: a picked record from another file loses its fields' docs in the declaration emit.
const rotateRoleFields: Pick<typeof directoryRoleFields, "name" | "mount"> = pick(directoryRoleFields, "name", "mount");

/** Which role: its name and mount. */
export type RotateRoleArgs = PlainArgsOf<typeof rotateRoleFields>;

const roleFn: FunctionDefinition<RotateRoleArgs, RotationResult> = { name: "rotateRole", fields: rotateRoleFields, sideEffects: true,
  async run(ctx, args) {
    const p = { mount: args.mount ?? DEFAULT_DIRECTORY_MOUNT, name: args.name };
    // A second rotation would push the password from before the first out of last_password, so a
    // lost response is read back: the role's last_service_rotation moves when the rotation happened.
    // Unread, a lost response cannot be told from a rotation: it is then reported, never repeated.
    const rotatedAt = () => fetchData(ctx, R.role.read, p).then((d) => String(d?.last_service_rotation ?? ""), () => undefined);
    const before = await rotatedAt();
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await ctx.client("secrets").request({ route: R.rotate.role, params: p, retry: "never" });
        return result(res.status, res.body, `rotateRole ${args.name}`);
      } catch (e) {
        if (!isAmbiguous(e) || before === undefined) throw e;
        const now = await rotatedAt();
        if (now === undefined) throw e;
        if (now !== before) return { rotated: true, warnings: [] };
        if (attempt >= 3) throw e;
        await pause(e, attempt);
      }
    }
  },
};

/** Rotates a role's service-account password now. No request during preview. */
export const rotateRole = forms(roleFn).promise;

/** Output form of {@link rotateRole}; unknown during preview. */
export const rotateRoleOutput = forms(roleFn).output;
