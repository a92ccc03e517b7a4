// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
export { CatalogEntry, type CatalogEntryArgs } from "./catalogEntry";
// (end of what npm run docs writes)
export {
  type PluginType, type PluginInfo, type PluginCatalog, PLUGIN_TYPES,
  getPlugin, getPluginOutput, listPlugins, listPluginsOutput,
} from "./catalogEntry";
