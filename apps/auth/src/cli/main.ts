/** Entry point of `authctl`: wires the process streams to runCli. */
import { text } from 'node:stream/consumers';
import { runCli } from './run-cli.ts';

const argv = process.argv.slice(2);
// Only commands that take a secret on stdin read it, so an interactive `authctl user list` never waits for EOF.
const stdin = argv.includes('--password-stdin') || argv.includes('--client-secret-stdin') ? await text(process.stdin) : '';

process.exitCode = await runCli(argv, {
  stdin,
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  // Audit lines of admin changes, as JSON on stderr (LOG_LEVEL applies); stdout stays the command's output.
  log: (line) => process.stderr.write(line),
});
