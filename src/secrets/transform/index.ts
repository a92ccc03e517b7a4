export { Template, type TemplateArgs } from "./template";
export { Alphabet, type AlphabetArgs } from "./alphabet";
