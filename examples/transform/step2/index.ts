// Step 2 of the transform example. Expected plan:
//   ~ update  ssn-keys  (rotationTrigger set: new tokens use key version 2)
//   + create  support   (a role holding only the masking transformation)
//   = same    everything else
import * as pulumi from "@pulumi/pulumi";
import { declare, roundTrip } from "../shared";

const { t, card, masked, ssn, payments } = declare(new pulumi.Config("transform"));

const keys = new t.TokenizationKeyConfig("ssn-keys", { transformation: ssn.name, rotationTrigger: "2026-q4" });
new t.Role("support", { name: "support", transformations: [masked.name] });

const { encoded, decoded } = roundTrip(t, payments.name, card.name);
export const encodedCard = encoded;
export const decodedCard = decoded;
export const tokenizationKeyVersion = keys.latestVersion;
