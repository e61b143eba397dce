/**
 * Loaded before every test file: what Node's engine loads at start-up and a browser only on demand
 * (#33), here for the unit tests that compile patterns or rules with no engine started.
 */
import { loadLinearEngine } from '../../src/validation/compile-pattern.js'

await loadLinearEngine()
