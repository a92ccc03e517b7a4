// Transform engine: format-preserving encryption, masking and tokenization of card numbers and
// SSNs, with the tokens kept in a PostgreSQL database.
//
//   pulumi config set transform:database 127.0.0.1:5432/postgres
//   pulumi config set transform:storeUser tokenizer      # needs SELECT, INSERT, UPDATE only
//   pulumi config set --secret transform:storePassword ...
//   pulumi config set transform:adminUser postgres       # may create the schema's tables
//   pulumi config set --secret transform:adminPassword ...
//   pulumi up            # creates everything, then encodes and decodes a card number
//   (step2/)             # rotates the tokenization key, adds a support role, moves the fpe
//                        # transformation to a template that takes spaces too and makes the email
//                        # tokenization exportable (a replacement, the crm role naming it
//                        # replaced with it): pulumi-svc-review lists the last two under
//                        # "Data at risk"
import * as pulumi from "@pulumi/pulumi";
import { declare, roundTrip } from "./shared";

const { t, card, ssn, payments } = declare(new pulumi.Config("transform"));

// Key settings of the tokenization transformation; no rotation yet.
new t.TokenizationKeyConfig("ssn-keys", { transformation: ssn.name });

const { encoded, decoded } = roundTrip(t, payments.name, card.name);
export const encodedCard = encoded;
export const decodedCard = decoded;
