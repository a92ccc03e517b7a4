import { emptyReply, type Reply } from "../../http";
import type { Route } from "../../router";
import type { SecretsContext } from "../context";
import { dataReply } from "../envelope";
import { bad } from "../fields";
import { directoryFor } from "./backend";
import { generatePassword } from "./password";
import { exclusive, handled, requireConfig, serialized } from "./rotate";

export const ROOT_ROTATION_WARNING = "Root password rotation is already in progress.";

/**
 * Gives the bind account a new generated password, known only to the service from then on. The
 * directory is changed first (bound with the old password), then the config.
 */
async function rotateRoot(ctx: SecretsContext): Promise<Reply> {
  const cfg = requireConfig(ctx);
  if (typeof cfg === "string") bad(cfg);
  const done = await exclusive(ctx, "root", () =>
    serialized(ctx, "root", async () => {
      const password = generatePassword(cfg);
      await directoryFor(ctx, cfg).setBindPassword(password);
      cfg.bindpass = password;
      ctx.rt.store.save();
    }),
  );
  return done ? emptyReply(204) : dataReply(null, [ROOT_ROTATION_WARNING]);
}

export const rootRoutes: Route<SecretsContext>[] = [
  { method: "POST", path: "rotate-root", handler: handled(rotateRoot) },
  { method: "GET", path: "rotate-root", handler: handled(rotateRoot) },
];
