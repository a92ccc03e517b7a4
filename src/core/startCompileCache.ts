// Imported first by the runtime entry: the modules loaded after it are compiled once per text.
import { startCompileCache } from "./compileCache";

startCompileCache();
