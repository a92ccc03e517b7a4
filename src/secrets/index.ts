export * as transform from "./transform";
