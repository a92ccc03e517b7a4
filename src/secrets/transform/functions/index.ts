export * from "./values";
export * from "./tokenState";
export * from "./reads";
