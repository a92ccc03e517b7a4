// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
export { Config, type DirectoryConfigArgs } from "./config";
export { Role, type DirectoryRoleArgs } from "./role";
export { LibrarySet, type LibrarySetArgs } from "./librarySet";
export { CheckOut, type CheckOutArgs } from "./checkOut";
// (end of what npm run docs writes)
export { type DirectoryConfigInfo, type MountArgs, getConfig, getConfigOutput } from "./config";
export {
  type DirectoryCredentials, type RoleRefArgs, type RoleRefInputs,
  getCredentials, getCredentialsOutput, listRoles, listRolesOutput,
} from "./role";
export {
  type AccountStatus, type SetRefArgs,
  getLibraryStatus, getLibraryStatusOutput, listLibrarySets, listLibrarySetsOutput,
} from "./librarySet";
export {
  type CheckOutResult, type CheckOutFnArgs, type CheckInArgs, NONE_AVAILABLE,
  checkOut, checkOutOutput, checkIn, checkInOutput, manageCheckIn, manageCheckInOutput,
} from "./checkOut";
export { type RotationResult, type RotateRoleArgs, rotateRoot, rotateRootOutput, rotateRole, rotateRoleOutput } from "./rotate";
export { DEFAULT_DIRECTORY_MOUNT } from "./routes";
