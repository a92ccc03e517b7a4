export {
  EntityAlias, type EntityAliasArgs, type EntityAliasInfo,
  getEntityAlias, getEntityAliasOutput, listEntityAliases, listEntityAliasesOutput,
} from "./entityAlias";
