// The layers of src/ (#28), enforced in `npm test` (`npm run lint:layers`) and drawn in CONTRIBUTING.md
// (`npm run layers:graph`). A folder imports only from the folders before it in this list: the layers
// below its own, and within its own layer the folders written before it. Types count: a type import
// ties two folders as much as a call does.
const LAYERS = [
  { name: '1 shared helpers and the error catalogue', folders: ['internal', 'errors', 'common'] },
  { name: '2 reading descriptions', folders: ['openapi'] },
  { name: '3 routing, validation, body generation', folders: ['routing', 'validation', 'generation'] },
  {
    name: '4 what an operation answers',
    folders: ['auth', 'responses', 'rules', 'scenarios', 'journal', 'verify', 'state', 'events', 'proxy', 'coverage'],
  },
  { name: '5 the engine, compiled at start-up', folders: ['engine'] },
  { name: '6 the per-request pipeline', folders: ['pipeline'] },
  { name: '7 the admin API and the app', folders: ['admin', 'http'] },
  {
    name: '8 platform adapters',
    folders: ['bundle', 'msw-handlers', 'relay', 'command-line', 'redis', 'node', 'vite-plugin', 'cluster'],
  },
]
/** The entry points, above every layer: the package's barrel and the command line. */
const ENTRY_POINTS = ['index.ts', 'cli.ts', 'run-cli.ts', 'msw.ts', 'msw-browser.ts', 'vite.ts']
/** Layers 1 to 7: the core, which runs the same in Node, a browser or a worker. */
const CORE = LAYERS.slice(0, 7).flatMap((layer) => layer.folders)
/** Packages that run in Node only; the core reaches them through the adapters of layer 8. */
const NODE_ONLY_PACKAGES = ['undici', '@fastify/busboy', '@hono/node-server', 'ioredis']

const ordered = LAYERS.flatMap((layer) => layer.folders.map((folder) => ({ folder, layer: layer.name })))
const ENTRY_FILES = `^src/(${ENTRY_POINTS.map((file) => file.replace(/\.ts$/, '')).join('|')})\\.ts$`
const folders = (list) => `^src/(${list.join('|')})/`

const layerRules = ordered.map(({ folder, layer }, index) => ({
  name: `layer ${layer}: ${folder}/`,
  comment: `${folder}/ (layer ${layer}) imports only from itself and the folders before it in .dependency-cruiser.cjs; this import runs up the layers, or to a folder in no layer`,
  severity: 'error',
  from: { path: `^src/${folder}/` },
  to: { path: '^src/', pathNot: folders(ordered.slice(0, index + 1).map((earlier) => earlier.folder)) },
}))

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'core without platform code',
      comment:
        'layers 1 to 7 import no node: module and no Node-only package: files, sockets, processes and the upstream client reach the core through the interfaces that src/node/ implements',
      severity: 'error',
      from: { path: folders(CORE) },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core without Node-only packages',
      comment: 'layers 1 to 7 import no Node-only package (undici, busboy, the Node server of Hono)',
      severity: 'error',
      from: { path: folders(CORE) },
      to: { path: `node_modules/(${NODE_ONLY_PACKAGES.join('|')})/` },
    },
    {
      name: 'every file in a layer',
      comment: 'a file of src/ outside every layer: put its folder in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: [folders(ordered.map((entry) => entry.folder)), ENTRY_FILES] },
      to: {},
    },
    {
      name: 'no circular folders',
      comment: 'folders that import each other in a circle, types counted',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no orphans',
      comment: 'a module nothing imports: dead code, or an entry point to list here',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: ENTRY_FILES },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: {
      archi: { collapsePattern: '^src/[^/]+/|^src/[^/]+\\.ts$' },
    },
  },
}

// For scripts/layers-graph.mjs, which draws these layers; not enumerable, since dependency-cruiser's
// check of its configuration refuses keys it does not know.
Object.defineProperty(module.exports, 'LAYERS', { value: LAYERS })
Object.defineProperty(module.exports, 'ENTRY_POINTS', { value: ENTRY_POINTS })
