// dependency-cruiser (npm run depcruise): the folder order of src/, written out in docs/architecture.md
// ("Folder order"). An import may only point down the LAYERS list or stay inside its own layer, and no two
// folders may import each other, directly or through others (no folder cycle).

/** Bottom up. A root file (src/x.ts) is its own entry; a folder covers everything under it. */
const LAYERS = [
  // Leaves. `http` (src/http/: sendJson, readJson, listen, router) and `validation` (zod issues to ConfigError)
  // sit here too: they know bytes, JSON and errors, nothing of the proxy.
  // `svg` (chart drawing, data in, SVG string out) is a leaf too: the report and the dashboard draw with it.
  ['resp', 'numbers', 'http', 'validation', 'svg',
    'clock.ts', 'errors.ts', 'units.ts', 'format.ts', 'endpoint.ts', 'text-grid.ts', 'version.ts'],
  ['stage'], // the stage contract and the chain machinery
  ['link', 'tap', 'tls', 'toxics', 'stats', 'redis', 'results', 'dashboard'],
  ['proxy'],
  ['cluster', 'sentinel', 'toxiproxy-api', 'workload', 'calibrate'],
  ['report', 'record'],
  ['cli'],
  // the public API: it re-exports from every layer, and nothing in src/ imports it; `api` wraps the
  // start and run functions so their ConfigErrors name option keys, not the CLI's flags.
  ['index.ts', 'api'],
];

const esc = (s) => s.replace(/[.]/g, '\\.');
/** The path pattern of one LAYERS entry. */
const entry = (name) => (name.endsWith('.ts') ? `^src/${esc(name)}$` : `^src/${esc(name)}/`);
const any = (names) => `(${names.map(entry).join('|')})`;

const above = (i) => LAYERS.slice(i + 1).flat();

const layerRules = LAYERS.slice(0, -1).map((names, i) => ({
  name: `layer-${i}-points-down`,
  comment: `${names.join(', ')} may import only their own layer and those below: never ${above(i).join(', ')}.`,
  severity: 'error',
  from: { path: any(names) },
  to: { path: any(above(i)) },
}));

export default {
  forbidden: [
    ...layerRules,
    {
      name: 'folder-in-a-layer',
      comment: 'Every src/ folder and root file has a place in LAYERS (.dependency-cruiser.js) and in docs/architecture.md.',
      severity: 'error',
      from: { path: '^src/', pathNot: any(LAYERS.flat()) },
      to: {},
    },
    {
      name: 'no-folder-cycle',
      comment: 'Folders import one another one way only.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-runtime-cycle',
      comment: 'No two modules load each other. A cycle of `import type` only is harmless at run time and allowed.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'src-stays-in-src',
      comment: 'The package ships src/ alone: nothing in it may import lab/ or test/.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(lab|test)/' },
    },
    {
      name: 'src-uses-runtime-dependencies',
      comment: 'What src/ imports must be a "dependencies" entry of package.json (an installed user has no devDependencies).',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // `import type` edges count: a type is a dependency of the code that names it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
