#!/usr/bin/env node
// V8's heap is capped first, then the command line is loaded: loading it (some 300 modules, all
// parsed before the first runs) grew V8's young generation to 16 MiB before any of them ran (#34 §5).
import { keepHeapSmall } from './command-line/small-heap.js'

keepHeapSmall()
await import('./run-cli.js')
