export { Config, type DirectoryConfigArgs, type DirectoryConfigInfo, type MountArgs, getConfig, getConfigOutput } from "./config";
export {
  Role, type DirectoryRoleArgs, type DirectoryCredentials, type RoleRefArgs, type RoleRefInputs,
  getCredentials, getCredentialsOutput, listRoles, listRolesOutput,
} from "./role";
export {
  LibrarySet, type LibrarySetArgs, type AccountStatus, type SetRefArgs,
  getLibraryStatus, getLibraryStatusOutput, listLibrarySets, listLibrarySetsOutput,
} from "./librarySet";
export {
  CheckOut, type CheckOutArgs, type CheckOutResult, type CheckOutFnArgs, type CheckInArgs, NONE_AVAILABLE,
  checkOut, checkOutOutput, checkIn, checkInOutput, manageCheckIn, manageCheckInOutput,
} from "./checkOut";
export { type RotationResult, type RotateRoleArgs, rotateRoot, rotateRootOutput, rotateRole, rotateRoleOutput } from "./rotate";
export { DEFAULT_DIRECTORY_MOUNT } from "./routes";
