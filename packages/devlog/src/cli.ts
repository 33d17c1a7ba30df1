#!/usr/bin/env node
// Reads pino lines on stdin and writes them formatted for a terminal (used by the dev scripts).
import { createInterface } from 'node:readline';
import { formatLogLine } from './format-log-line.ts';

createInterface({ input: process.stdin }).on('line', (line) => process.stdout.write(`${formatLogLine(line)}\n`));
