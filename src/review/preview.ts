/**
 * The output of `pulumi preview --json`, as far as a review reads it. Everything else the CLI
 * prints (source positions, stack traces, timestamps, property dependencies) is let through unread.
 */
import { z } from "../core/zod";
import type { z as Zod } from "zod";

const state = z.looseObject({
  urn: z.string().optional(),
  type: z.string().optional(),
  id: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
  /** Property names the program marked secret beyond the engine's own markers. */
  additionalSecretOutputs: z.array(z.string()).optional(),
  /** Set on the old state of a replacement whose old object goes first (delete before replace). */
  pendingReplacement: z.boolean().optional(),
  /** Set on the old state of a replacement whose old object is deleted after its successor is created. */
  delete: z.boolean().optional(),
  deleteBeforeReplace: z.boolean().optional(),
  /** Per input, the urns of the resources its value came from. */
  propertyDependencies: z.record(z.string(), z.array(z.string()).nullish()).optional(),
  /** The errors the last operation left on a resource it kept (a create that failed after the server acted). */
  initErrors: z.array(z.string()).optional(),
});

const step = z.looseObject({
  op: z.string(),
  urn: z.string(),
  oldState: state.nullish(),
  newState: state.nullish(),
  replaceReasons: z.array(z.string()).nullish(),
  diffReasons: z.array(z.string()).nullish(),
  deleteBeforeReplace: z.boolean().nullish(),
});

export const previewSchema = z.looseObject({
  steps: z.array(step).nullish(),
  changeSummary: z.record(z.string(), z.number()).nullish(),
  diagnostics: z.array(z.looseObject({ message: z.string().optional(), severity: z.string().optional(), urn: z.string().optional() })).nullish(),
});

export type Preview = Zod.infer<typeof previewSchema>;
export type PreviewStep = Zod.infer<typeof step>;
export type PreviewState = Zod.infer<typeof state>;

/** Parses the text the CLI printed; the error says what is wrong without echoing the input. */
export function parsePreview(text: string): Preview {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error("the input is not JSON: pass the output of `pulumi preview --json`");
  }
  const parsed = previewSchema.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ");
    throw new Error(`the input is not the output of \`pulumi preview --json\` (${where})`);
  }
  // Every preview the CLI prints has at least one of these, a failed one its diagnostics.
  const { steps, changeSummary, diagnostics } = parsed.data;
  if (steps == null && changeSummary == null && diagnostics == null) {
    throw new Error("the input is not the output of `pulumi preview --json` (it has no steps, changeSummary or diagnostics)");
  }
  return parsed.data;
}
