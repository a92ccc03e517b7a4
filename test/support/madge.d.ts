// The part of madge's API the import-graph test uses (the package ships no types).
declare module "madge" {
  interface MadgeResult {
    /** File → the files it imports, relative to the base folder. */
    obj(): Record<string, string[]>;
    circular(): string[][];
  }
  function madge(path: string, config?: Record<string, unknown>): Promise<MadgeResult>;
  export default madge;
}
