/**
 * `plant-store-mock/vite`: the mock on Vite's dev server, under a base path (`mockPlugin`), with the
 * description and fixtures reloaded as they change.
 */
export { type MockPluginOptions, mockPlugin } from './vite-plugin/mock-plugin.js'
export { StartupError, type StartupErrorCode, startupErrorCodes } from './errors/index.js'
