#!/usr/bin/env node
// Runs the payonce command line from this package directly (the demo starts its service replicas with it).
import { runCli } from '../dist/run-cli.js';

process.exitCode = await runCli(process.argv.slice(2));
