/**
 * The text of `--help`. Every line fits 80 columns (a test checks it), and Prism's flags sit
 * beside ours under the heading of what they do, since they are ours too.
 */
export const CLI_HELP = `Usage: plant-store-mock [mock] [<description>] [options]

Serves an API description as a contract-checking mock: OpenAPI 3.1, OpenAPI
3.2, 3.0 or Swagger 2.0, in YAML or JSON (default: the embedded Plant Store).
Prism's command line works as it is: "prism mock api.yaml -p 4010 -d" becomes
"plant-store-mock mock api.yaml -p 4010 -d"; the word "mock" is optional.

The description and its bodies:
  <description>        description to serve, as a file           [env MOCK_SPEC]
  --spec <file>        the same, as a flag
  --fixtures <dir>     fixture folder (<operationId>/<status>[.<name>].json)
                       [env MOCK_FIXTURES, default: embedded fixtures/ for the
                       embedded description, else fixtures/ beside it]
  -d, --dynamic        generate every body with json-schema-faker, ignoring
                       fixtures and examples
  --ignoreExamples     generate the bodies the description has examples for
                       (fixtures are still served)
  --seed <seed>        seed for generated bodies: a whole number, or any text
                       (hashed to one); same seed, same bodies [default: random]
  --json-schema-faker-fillProperties <true|false>
                       false: generated bodies carry only required properties
                       (true: every declared property)           [default: true]
  --scenario <name>    scenario at start: default, error, unauthorized,
                       dynamic, or one of fixtures/scenarios.yaml
                                           [env MOCK_SCENARIO, default: default]
  --watch              reload the description, fixtures and scenarios when they
                       change; a broken edit keeps the last good one serving
  --stateful           keep data: POST creates, GET reads and lists, PUT, PATCH
                       and DELETE change what is kept, per resource the
                       description implies     [env MOCK_STATEFUL, default: off]
  --state-file <file>  keep the data in this JSON file: loaded at start, saved
                       within a second of a change and on exit (implies
                       --stateful)                      [env MOCK_STATE_FILE]
  --state-limit <n>    records kept per resource and session
                                                                [default: 10000]
  --store <url>        keep the state in Redis, shared by every replica naming
                       it: redis://[user:pass@]host:port/db or rediss://
                                          [env MOCK_STORE, default: in memory]
  --store-prefix <p>   what the store's keys start with, so that two mocks share
                       one Redis    [default: the description's title, version]
  --session-ttl <t>    a session's data in the store expires this long after
                       its last write: ms, or 30s, 15m, 24h      [default: 24h]
  --allow-ref-outside <dir>  a folder outside the description's own that its
                       $refs may read; repeat for more [default: its own only]

Proxy mode (Prism's "proxy <description> <url>"):
  --proxy <url>        forward each request of the description to this backend
                       and check its answers against the description [env
                       MOCK_PROXY]; Prefer, scenarios and stubs still answer
  --proxy-timeout <t>  how long the backend may take to answer, or pause within
                       its body: ms, or 30s                    [default: 30s]
  --proxy-connect-timeout <t>  how long a new connection to it may take to
                       open: ms, or 5s                          [default: 5s]
  --proxy-insecure     accept an https backend's self-signed certificate
  --record <dir>       write each answer of the backend that keeps the contract
                       as a fixture in <dir>; replay with --fixtures <dir>
  --record-overwrite   replace a fixture already recorded for the same request
  --proxy-only <ops>   forward only these operations (operationIds or
                       "METHOD /path", comma-separated); mock the others
  --mock-only <ops>    mock these operations, forward the others
  --fallback           answer from the mock where the backend answers 404 or
                       501 to an operation the description declares

Callbacks and webhooks:
  --webhook-url <url>  where a webhook sent on demand goes when no "to" is given
  --webhook-secret <s> sign every callback and webhook: X-Hub-Signature-256:
                       sha256=<HMAC-SHA256 of the body, hex>
                                                   [env MOCK_WEBHOOK_SECRET]
  --webhook-allow <hosts>  host names callbacks and webhooks may go to when the
                       mock listens beyond loopback (comma-separated)
  --max-deliveries-in-flight <n>
                       sent at once; more wait in a queue       [default: 100]
  --webhook-timeout <ms>
                       one attempt's limit                     [default: 5000]
  --webhook-retries <n>  retries on network errors and 5xx, the first after
                       0.5 s, doubling                           [default: 3]

Listening:
  -p, --port <n>       port; 0 picks a free one        [env PORT, default: 4010]
  -h, --host <addr>    address to listen on       [env HOST, default: 127.0.0.1]
  --cors [true|false]  CORS headers and preflight answers; --cors false,
                       --cors=false or --no-cors turns them off    [default: on]
  -m, --multiprocess   accepted for Prism's sake; see --workers
  --workers <n|auto>   processes answering on the one port (auto: one per
                       core); scenarios, stubs, journal and data are shared
                                                [env MOCK_WORKERS, default: 1]

Checks and limits:
  --token <t>          accept only this bearer token / API key; repeat for
                       more                                       [default: any]
  --errors             check every response before it is sent; one that breaks
                       the description answers 500                [default: off]
  --validate <mode>    what a request that breaks the description gets: strict
                       (400 or 422), report (answered as valid, the violations
                       in X-Mock-Violations), off (not validated; security
                       still applies)                          [default: strict]
  --max-body <size>    largest request body, e.g. 1048576, 512kb, 1mb
                                                                  [default: 1mb]
  --max-depth <n>      deepest nesting of a JSON request body     [default: 256]
  --delay <ms|min-max> latency added to every answer, e.g. 200 or 100-500
                                                                    [default: 0]
  --generation-bytes <size>  largest generated body, e.g. 2mb; a larger one is
                       answered 500 naming its schema             [default: 1mb]
  --generation-ms <ms> longest time generating one body may take; past it,
                       it is stopped and answered 500            [default: 5000]

Admin API (/__mock) and journal:
  --admin-token <t>    require "Authorization: Bearer <t>" on /__mock/*
                       (health excepted)                         [default: none]
  --no-admin           do not serve the admin API under /__mock
  --allowed-hosts <a,b>  host names besides loopback ones that may use the
                       admin API of a mock on loopback           [default: none]
  --journal-size <n>   requests kept in the journal (oldest dropped)
                                                                 [default: 1000]
  --journal-bytes <size>  bytes the journal keeps (oldest dropped)
                                                                 [default: 64mb]

Coverage:
  --coverage-report <dir>  write coverage.json, coverage.md, junit.xml and
                       coverage.html there at exit            [default: none]
  --coverage-min <k=%,..>  exit non-zero at shutdown when less is exercised:
                       operations=100,statuses=80,responses=50; also
                       bodies=, rules=, events=               [default: none]

Logs:
  --log-format <f>     text, or json (one object per line)
                                            [env MOCK_LOG_FORMAT, default: text]
  --quiet              no request lines (the start line, warnings and errors
                       are still printed)
  --debug              log stacks of unexpected errors
  -v, --verboseLevel <level>  Prism's levels: trace, debug (both: --debug),
                       info (the default), warn (--quiet), error (no warnings
                       either), fatal (no errors met while serving), silent
                       (nothing, not even the start line, but a failure to
                       start)

  --help               show this help
  --version            show the version

Without a server ("bundle <description> --out <file>"):
  --out <file>         write the description, fixtures, scenarios and seed
                       data, checked as at start-up, and the options given,
                       to one JSON file for createHandlers({ bundle }) from
                       plant-store-mock/msw (MSW in a browser)

Flags win over environment variables.

Requests steer the mock (docs/request-controls.md):
  Prefer: code=400, example=<name>, dynamic=true, delay=<ms>   (Prism's)
  ?__code=400&__example=<name>   the same, in the query
  X-Mock-Scenario: error         a scenario for one request
  X-Mock-Session: <id>           scenarios and data of one test apart
The admin API is under /__mock/ (the dashboard at /__mock/, the journal at
/__mock/requests, scenarios, stubs, state, coverage; docs/
journal-and-admin-api.md).

Examples:
  plant-store-mock api.yaml -p 4010       Prism's "prism mock api.yaml -p 4010"
  curl -X POST localhost:4010/plants -H 'Authorization: Bearer t' \\
    -H 'Content-Type: application/json' -d '{"id":1,"name":"Fern"}' \\
    -H 'Prefer: code=400'                 the 400 path, on demand
  plant-store-mock api.yaml --scenario error   every answer its error
  npx vitest   # with startMockServer({ spec, port: 0 }) in a test (README)
  docker run --rm -p 4010:4010 -v "$PWD:/spec:ro" \\
    -e MOCK_SPEC=/spec/api.yaml plant-store-mock

`
