#!/bin/sh
# Checks the environment of each app as its start would, without starting anything or opening a
# database: every problem of every app, the same lines start-up prints, then exit 1; or one
# `<app>: configuration ok (…)` line per app, without secrets. Run it on every host before a start:
#   sh deploy/scripts/check-config.sh
set -u
root=$(dirname "$0")/../..
status=0
node "$root/apps/auth/dist/cli/main.js" config check || status=1   # authctl config check
node "$root/apps/api/dist/config-check.js" || status=1
node "$root/apps/client/dist/config-check.js" || status=1          # the app CLIENT_ID names
exit "$status"
