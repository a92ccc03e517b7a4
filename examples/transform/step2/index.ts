// Step 2 of the transform example. Expected plan:
//   ~ update  ssn-keys          (rotationTrigger set: new tokens use key version 2)
//   + create  support           (a role holding only the masking transformation)
//   + create  card-template-v2  (card numbers with dashes or spaces)
//   ~ update  card              (template: values encoded before no longer decode to what they were)
//  +- replace emails            (mappingMode: a new transformation, the old one deleted first)
//  +- replace crm               (the role naming it: deleted before it, made again after)
//   = same    everything else
import * as pulumi from "@pulumi/pulumi";
import { declare, roundTrip } from "../shared";

const { t, card, masked, ssn, payments } = declare(new pulumi.Config("transform"), true);

const keys = new t.TokenizationKeyConfig("ssn-keys", { transformation: ssn.name, rotationTrigger: "2026-q4" });
new t.Role("support", { name: "support", transformations: [masked.name] });

const { encoded, decoded } = roundTrip(t, payments.name, card.name);
export const encodedCard = encoded;
export const decodedCard = decoded;
export const tokenizationKeyVersion = keys.latestVersion;
