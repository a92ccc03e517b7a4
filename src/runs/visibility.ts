/**
 * The run service answers 404 for "not found" and for "not authorized" alike. Before a 404 counts
 * as proof that an object is gone (refresh drops it, delete counts as done), the token must be
 * able to see the workspace that holds it: a workspace-scoped list answers 200 only then.
 */
import type { Context } from "../core/definition";
import { ForbiddenError, isSvcError, type SvcError } from "../http";

export function confirmGoneIn(listRoute: string, what: string) {
  return async (ctx: Context, id: string, props: { workspaceId?: string }, notFound: Error): Promise<void> => {
    const workspaceId = props.workspaceId;
    const client = ctx.client("runs");
    const unsure = (why: string) => {
      const e = notFound as SvcError;
      return new ForbiddenError({
        service: "runs", method: e.method, path: e.path, status: e.status,
        messages: [...(e.messages ?? []), `${what} ${id} answered 404, which on the run service means "not found or unauthorized", ` +
          `and ${why}: it is kept in state and nothing counts as deleted. Use a token with admin access to the workspace, ` +
          `or, if the object is really gone, remove it from the stack with pulumi state delete`],
      });
    };
    if (!workspaceId) throw unsure("the state does not say which workspace holds it");
    try {
      await client.request({ route: listRoute, params: { workspace_id: workspaceId }, query: { "page[number]": 1, "page[size]": 1 } });
    } catch (e) {
      if (isSvcError(e, "not_found") || isSvcError(e, "forbidden")) throw unsure(`the token cannot see workspace ${workspaceId} either`);
      throw e;
    }
  };
}
