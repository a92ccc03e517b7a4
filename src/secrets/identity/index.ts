// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
export { EntityAlias, type EntityAliasArgs } from "./entityAlias";
// (end of what npm run docs writes)
export {
  type EntityAliasInfo,
  getEntityAlias, getEntityAliasOutput, listEntityAliases, listEntityAliasesOutput,
} from "./entityAlias";
