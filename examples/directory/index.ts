// Directory engine: config → role → library set → a borrowed account.
//
//   pulumi config set --secret directory:bindpass ...
//   pulumi up            # configures the engine, creates the role and the set, checks out an account
//   (step2/)             # adds an account to the set (in place), rotates the role's password and
//                        # gives the service the bind password changed on the directory
//                        # (directory:bindpass2), which pulumi-svc-review lists under "Data at risk"
//   pulumi destroy       # checks the account in (rotating it), then removes the set, role and config
import { declare } from "./shared";

const { outputs } = declare(["pool-1"]);

export const { appUser, appPassword, borrowedAccount, borrowedPassword, leaseSeconds, poolAccounts } = outputs;
