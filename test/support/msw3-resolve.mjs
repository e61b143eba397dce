/**
 * `node --import ./test/support/msw3-resolve.mjs`: in that child Node (22.15 or later, for
 * `registerHooks`), `msw` and `msw/*` resolve to the `msw3` devDependency (msw 3, an npm alias), so
 * the built package's own `import { http } from 'msw'` and the script's `msw/node` load the same msw 3.
 * Nothing else is redirected: msw 3's own dependencies resolve from its folder as usual.
 */
import { registerHooks } from 'node:module'

registerHooks({
  resolve(specifier, context, nextResolve) {
    const msw = /^msw(\/.*)?$/.exec(specifier)
    return nextResolve(msw ? `msw3${msw[1] ?? ''}` : specifier, context)
  },
})
