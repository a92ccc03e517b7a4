// Transform engine rules: what tokens can give back, how long they live, and who a store runs as.
import { Store } from "../../secrets/transform/store";
import { StoreSchema } from "../../secrets/transform/storeSchema";
import { TokenizationTransformation } from "../../secrets/transform/tokenizationTransformation";
import { durationSetting, namesSetting, secondsOf } from "../config";
import { anyStackRule, resourceRule } from "../rule";

export const tokenizationExportable = resourceRule(TokenizationTransformation, "tokenization-exportable", "mandatory", {
  description: "A tokenization transformation keeps the default mapping mode. In exportable mode, export-decoded returns every plaintext with its token, and the service recommends default (secrets service seed B, tokenization transformations and export-decoded); the mode cannot change afterwards (a change replaces the transformation and its tokens stop decoding), and snapshots of one mode do not restore into the other.",
  remediationSteps: "Leave mappingMode out (default), or name the transformation in allowedNames where an emergency export is the point.",
  config: { allowedNames: namesSetting("Transformations that may be exportable all the same.") },
  validate(t, { allowedNames }: { allowedNames: string[] }, reportViolation) {
    if (t.mappingMode === "exportable" && !allowedNames.includes(t.name)) reportViolation(`${t.name}: exportable mapping mode lets export-decoded return every plaintext`);
  },
});

/** Whether a tokenization maxTtl breaks the rule: 0 (tokens never expire) or above `maximum`. */
const tooLong = (value: unknown, maximum: string) => {
  const s = secondsOf(value ?? 0);
  return s !== undefined && (s === 0 || s > (secondsOf(maximum) ?? Infinity));
};

export const tokenizationMaxTtl = resourceRule(TokenizationTransformation, "tokenization-max-ttl", "advisory", {
  description: "A tokenization transformation's tokens expire, within the team's maximum. max_ttl defaults to 0, and then tokens may never expire (secrets service seed B, tokenization transformations): a token handed out once decodes for ever, wherever it was copied to. Remediation sets maxTtl to the configured maximum, in place.",
  remediationSteps: "Set maxTtl to at most the maximum (8760h unless configured).",
  config: { maximum: durationSetting("Longest maxTtl of a transformation's tokens.", "8760h") },
  validate(t, { maximum }: { maximum: string }, reportViolation) {
    if (tooLong(t.maxTtl, maximum)) reportViolation(`${t.name}: maxTtl ${t.maxTtl ?? 0} ${secondsOf(t.maxTtl ?? 0) === 0 ? "lets tokens live for ever" : `is above ${maximum}`}`);
  },
  remediate: (t, { maximum }) => (tooLong(t.maxTtl, maximum) ? { maxTtl: maximum } : undefined),
});

export const storeSchemaUser = anyStackRule("store-schema-user", "advisory", {
  description: "A tokenization store does not run as the user that made its schema. The store's database user needs only SELECT, INSERT and UPDATE, while the schema call takes credentials used for that call only, so that a user with schema-change rights need not be the store's (secrets service seed B, Store and its schema): a store given the schema user holds rights it never needs, for as long as it runs.",
  remediationSteps: "Give the Store a user with SELECT, INSERT and UPDATE only, and the StoreSchema the user that may change the schema.",
  validate(args, _config, reportViolation) {
    const stores = args.resources.filter((r) => r.isType(Store));
    const schemas = args.resources.filter((r) => r.isType(StoreSchema));
    if (stores.length === 0 || schemas.length === 0) return args.notApplicable("no store with a schema in this stack");
    for (const s of schemas) {
      const store = stores.find((r) => r.props.name === s.props.store && (r.props.mount ?? "transform") === (s.props.mount ?? "transform"));
      if (store && store.props.username === s.props.username) reportViolation(`store ${store.props.name} runs as ${s.props.username}, the user its schema was made with`, store.urn);
    }
  },
});
