/**
 * Every endpoint of the transform engine, as data: `"METHOD /path/{param}"` relative to the secrets
 * service's `/v1`, grouped by API object (seed 002, "Endpoints"). The only place in
 * src/secrets/transform where a route is written.
 */
export const TRANSFORM_ROUTES = {
  /** Role, seed 002 "Transform engine: roles, transformations, templates, alphabets, stores". */
  role: {
    write: "POST /{mount}/role/{name}",
    read: "GET /{mount}/role/{name}",
    delete: "DELETE /{mount}/role/{name}",
    list: "LIST /{mount}/role",
  },
  /** Transformation (generic and typed writes), seed 002 "Transform engine: roles, transformations, templates, alphabets, stores". */
  transformation: {
    read: "GET /{mount}/transformation/{name}",
    delete: "DELETE /{mount}/transformation/{name}",
    list: "LIST /{mount}/transformation",
    generic: "POST /{mount}/transformation/{name}",
    fpe: "POST /{mount}/transformations/fpe/{name}",
    masking: "POST /{mount}/transformations/masking/{name}",
    tokenization: "POST /{mount}/transformations/tokenization/{name}",
  },
  /** Template, seed 002 "Transform engine: roles, transformations, templates, alphabets, stores". */
  template: {
    write: "POST /{mount}/template/{name}",
    read: "GET /{mount}/template/{name}",
    delete: "DELETE /{mount}/template/{name}",
    list: "LIST /{mount}/template",
  },
  /** Alphabet, seed 002 "Transform engine: roles, transformations, templates, alphabets, stores". */
  alphabet: {
    write: "POST /{mount}/alphabet/{name}",
    read: "GET /{mount}/alphabet/{name}",
    delete: "DELETE /{mount}/alphabet/{name}",
    list: "LIST /{mount}/alphabet",
  },
  /** Store and its schema, seed 002 "Transform engine: roles, transformations, templates, alphabets, stores". */
  store: {
    write: "POST /{mount}/stores/{name}",
    read: "GET /{mount}/stores/{name}",
    delete: "DELETE /{mount}/stores/{name}",
    list: "LIST /{mount}/stores",
    schema: "POST /{mount}/stores/{name}/schema",
  },
  /** Value operations through a role, seed 002 "Transform engine: value operations". */
  value: {
    encode: "POST /{mount}/encode/{role}",
    decode: "POST /{mount}/decode/{role}",
    validate: "POST /{mount}/validate/{role}",
    tokenized: "POST /{mount}/tokenized/{role}",
    metadata: "POST /{mount}/metadata/{role}",
  },
  /** Tokenization state (snapshot, restore, export-decoded), seed 002 "Transform engine: tokenization state and keys". */
  tokenState: {
    snapshot: "POST /{mount}/transformations/tokenization/snapshot/{name}",
    restore: "POST /{mount}/transformations/tokenization/restore/{name}",
    exportDecoded: "POST /{mount}/transformations/tokenization/export-decoded/{name}",
  },
  /** Tokenization key, seed 002 "Transform engine: tokenization state and keys". */
  tokenizationKey: {
    read: "GET /{mount}/tokenization/keys/{name}",
    list: "LIST /{mount}/tokenization/keys",
    rotate: "POST /{mount}/tokenization/keys/{name}/rotate",
    config: "POST /{mount}/tokenization/keys/{name}/config",
    trim: "POST /{mount}/tokenization/keys/{name}/trim",
  },
} as const;
