/**
 * Every start-up error has a stable code, grouped by what is wrong (fastify's `lib/errors.js`): tests
 * and tools match the code, people read the message. A code never changes meaning; a new problem gets a new code.
 */
export const startupErrorCodes = [
  // The description: reading, parsing, and what it declares.
  'description_unreadable',
  'description_not_yaml',
  'description_not_object',
  'description_unsupported_swagger',
  'description_unsupported_version',
  'description_bad_paths',
  'description_swagger_conversion',
  'description_self_containing',
  'description_too_deep',
  'description_unresolved_ref',
  'description_bad_ref',
  'description_bad_path',
  'description_bad_parameter',
  'description_bad_parameter_style',
  'description_bad_response_code',
  'description_bad_schema',
  'description_uncheckable_security',
  'description_admin_path',
  // Fixture files and their headers.
  'fixture_folder_missing',
  'fixture_unknown_operation',
  'fixture_bad_name',
  'fixture_ambiguous_operation',
  'fixture_unreadable',
  'fixture_not_json',
  'fixture_empty_stream',
  'fixture_no_matching_media',
  'fixture_unknown_status',
  'fixture_unknown_callback',
  'fixture_no_content',
  'fixture_no_json_media',
  'fixture_mismatch',
  'fixture_orphan_headers',
  'fixture_bad_headers',
  'fixture_duplicate_header',
  'fixture_headers_mismatch',
  // Scenario files, and the scenario to start with.
  'scenario_unknown',
  'scenario_file_unreadable',
  'scenario_file_not_yaml',
  'scenario_file_not_map',
  'scenario_bad_name',
  'scenario_defined_twice',
  'scenario_no_rules',
  'scenario_unknown_operation',
  'scenario_bad_rule',
  'scenario_unknown_rule_field',
  'scenario_bad_status',
  'scenario_undeclared_status',
  'scenario_unknown_example',
  'scenario_bad_dynamic',
  'scenario_bad_delay',
  'scenario_bad_fault',
  'scenario_bad_stream',
  'scenario_bad_condition',
  'scenario_bad_times',
  'scenario_bad_sequence',
  'scenario_bad_body',
  'scenario_bad_headers',
  'scenario_bad_from',
  'scenario_bad_validate',
  // Placeholders in fixtures and examples (`{{request.body.name}}`).
  'template_bad_expression',
  'template_never_matches',
  // The webhooks file (`fixtures/webhooks.yaml`).
  'webhook_file_invalid',
  'webhook_bad_binding',
  // Options given to createMockServer (the CLI's own codes are cli_*).
  'option_bad_port',
  'option_bad_seed',
  'option_bad_max_body',
  'option_bad_token',
  'option_bad_admin_token',
  'option_bad_journal_size',
  'option_bad_journal_bytes',
  'option_bad_max_depth',
  'option_bad_generation_bytes',
  'option_bad_generation_ms',
  'option_bad_validate',
  'option_bad_log_format',
  'option_bad_delay',
  'option_bad_size',
  'option_bad_state_limit',
  'option_bad_webhook_url',
  'option_bad_delivery',
  'option_bad_proxy',
  'option_bad_store',
  'option_bad_session_ttl',
  'option_bad_base',
  // Stateful mode: seed data (`fixtures/data/<resource>.json`) and the state file (`--state-file`).
  'state_seed_unreadable',
  'state_seed_invalid',
  'state_seed_unknown_resource',
  'state_file_unreadable',
  'state_file_invalid',
  // The shared store (`--store redis://`, #32).
  'store_unreachable',
  'store_replicas_full',
  // A mock bundle (`plant-store-mock bundle`), and options that need Node where it runs without.
  'bundle_invalid',
  'bundle_unreadable',
  'bundle_unwritable',
  'option_needs_node',
  // The command line (`CommandLineError`).
  'cli_unknown_flag',
  'cli_bad_value',
  'cli_missing_value',
  'cli_two_descriptions',
  'cli_bad_workers',
  // Listening.
  'port_in_use',
  'port_forbidden',
  'host_unavailable',
  'listen_failed',
] as const

export type StartupErrorCode = (typeof startupErrorCodes)[number]

/** A problem with the description, the fixtures or the options, found before the server listens. */
export class StartupError extends Error {
  constructor(
    readonly code: StartupErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'StartupError'
  }
}
