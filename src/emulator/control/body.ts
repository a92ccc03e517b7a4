import { jsonReply, parseJson, type Incoming, type Reply } from "../transport/http";

/** A control endpoint's error: `{error}` with the status. */
export const fail = (status: number, error: string): Reply => jsonReply(status, { error });

/** A control handler of a JSON body (empty means `{}`): invalid JSON is answered 400 before it runs. */
export function withBody<R>(handler: (rt: R, value: unknown, req: Incoming) => Reply): (rt: R, req: Incoming) => Reply {
  return (rt, req) => {
    const parsed = parseJson(req.body);
    return parsed.ok ? handler(rt, parsed.value ?? {}, req) : fail(400, `invalid JSON: ${parsed.error}`);
  };
}
