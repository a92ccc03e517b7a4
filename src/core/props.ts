/** Properties as the engine passes them: inputs, outputs and state alike. */
export type Props = Record<string, unknown>;
