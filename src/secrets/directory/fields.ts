/** Fields shared by the directory engine's objects and functions. */
import { field, type PlainArgsOf } from "../../core/fields";
import { mount } from "../fields";
import { DEFAULT_DIRECTORY_MOUNT } from "./routes";

export const mountField = {
  /**
   * Mount path of the directory engine. Default `directory`. Part of a resource's path: changing it
   * replaces the resource.
   */
  mount: field(mount, { identity: true, default: DEFAULT_DIRECTORY_MOUNT, refers: "secrets:DirectoryConfig" }),
};

/** Which directory engine: its mount path. */
export type MountArgs = PlainArgsOf<typeof mountField>;

