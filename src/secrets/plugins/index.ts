export {
  CatalogEntry, type CatalogEntryArgs, type PluginType, type PluginInfo, type PluginCatalog, PLUGIN_TYPES,
  getPlugin, getPluginOutput, listPlugins, listPluginsOutput,
} from "./catalogEntry";
