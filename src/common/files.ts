/** The file system as the core reads it (descriptions, fixtures, scenarios, seed data) and writes it (`--record`, `--state-file`). */
/** Filled in by the files adapter (#28). */
export interface Files {}
