// Step 2: a second account joins the library set (an update, not a replacement: the borrowed
// account stays out), the role's password is rotated now, and the service gets the bind account's
// new password (directory:bindpass2), already changed on the directory. Expected plan:
//   ~ update  pool  (serviceAccountNames)
//   ~ update  ldap  (bindpass: the service binds with the new password from now on)
// pulumi-svc-review lists ldap under "Data at risk": had the directory not taken the new password
// first, the service would lose its bind and every rotation and check-out would fail.
import * as svc from "pulumi-svc";
import { declare } from "../shared";

const { app, outputs } = declare(["pool-1", "pool-2"], "bindpass2");

// A side-effecting function: no request during preview, one rotation per `pulumi up`. A rotation
// already in progress is a warning in the log, not a failure.
export const rotation = svc.secrets.directory.rotateRoleOutput({ name: app.name });

export const { appUser, appPassword, borrowedAccount, borrowedPassword, leaseSeconds, poolAccounts } = outputs;
