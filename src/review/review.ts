/** `pulumi preview --json` text in, Markdown review out. */
import { reviewModel } from "./diff";
import { parsePreview } from "./preview";
import { blocks, noChanges, summary, type RenderOptions } from "./render";
import { scrub } from "./secret";
import { assemble, COMMENT_LIMIT } from "./truncate";

export interface ReviewOptions extends RenderOptions {
  /** Most characters of the review (default 65,536, a GitHub comment's limit). */
  limit?: number;
}

export function reviewPreview(json: string, options: ReviewOptions = {}): string {
  const model = reviewModel(parsePreview(json));
  const text = model.changes.length === 0 ? noChanges(model) : assemble(summary(model), blocks(model, options), options.limit ?? COMMENT_LIMIT);
  // Secret values are never rendered; a secret's text met in a plain place is masked as well.
  return scrub(text, model.secrets);
}
