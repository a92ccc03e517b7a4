// Step 2: a second account joins the library set (an update, not a replacement: the borrowed
// account stays out), and the role's password is rotated now.
import * as svc from "pulumi-svc";
import { declare } from "../shared";

const { app, outputs } = declare(["pool-1", "pool-2"]);

// A side-effecting function: no request during preview, one rotation per `pulumi up`. A rotation
// already in progress is a warning in the log, not a failure.
export const rotation = svc.secrets.directory.rotateRoleOutput({ name: app.name });

export const { appUser, appPassword, borrowedAccount, borrowedPassword, leaseSeconds, poolAccounts } = outputs;
