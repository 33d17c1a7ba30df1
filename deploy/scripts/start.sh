#!/bin/sh
# Runs one instance of an app in the foreground, from the built tree, with the environment file
# loaded; the process manager (systemd, compose) runs one per instance and stops it with SIGTERM
# (the script becomes the app: exec). Each instance needs its own port and metrics port when two
# share a host (deploy/README.md section 5):
#   sh deploy/scripts/start.sh auth                                        # or api, client
#   AUTH_PORT=3010 AUTH_METRICS_PORT=9474 sh deploy/scripts/start.sh auth  # a second one on this host
set -eu
root=$(dirname "$0")/../..
case "${1:-}" in
  auth | api | client) exec node "$root/apps/$1/dist/main.js" ;;
  *) echo "start: name the app to run: auth, api or client" >&2; exit 1 ;;
esac
