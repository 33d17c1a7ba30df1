#!/bin/sh
# Applies every app's pending migrations, each as its own step (production instances refuse a
# schema that is behind). Run from the built tree with the apps' environment; safe to run from
# several places at once, and again (it then changes nothing).
#   sh deploy/scripts/migrate.sh
set -eu
node apps/auth/dist/cli/main.js db migrate     # authctl db migrate: AUTH_DATABASE_URL and the auth settings
node apps/api/dist/migrate.js                  # API_DATABASE_URL only: runs before the API's client exists
node apps/client/dist/migrate.js               # CLIENT_DATABASE_URL only
