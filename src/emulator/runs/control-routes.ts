import type { Route } from "../router";
import type { Runtime } from "../runtime";
import { recordAssessment } from "./assessments";
import { listDeliveries } from "./deliveries-wait";
import { bulkCreate } from "./controlSeed";
import { runDriveRoutes } from "./control";

/** The run service's rows of the /_emulator routes table (see the emulator README). */
export const runControlRoutes: Route<Runtime>[] = [
  ...runDriveRoutes,
  { method: "POST", path: "/runs", handler: bulkCreate },
  { method: "POST", path: "/assessments", handler: recordAssessment },
  { method: "GET", path: "/deliveries", handler: listDeliveries },
];
