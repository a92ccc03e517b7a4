export {
  DualFactorMethod, type DualFactorMethodArgs, type DualFactorMethodInfo,
  getDualFactorMethod, getDualFactorMethodOutput, listDualFactorMethods, listDualFactorMethodsOutput,
} from "./dualFactorMethod";
