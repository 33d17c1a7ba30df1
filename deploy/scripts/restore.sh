#!/bin/sh
# Restores one dump into a database (an empty one from create-databases.sh, or the one it came
# from): --clean drops what the dump holds first, and --if-exists keeps that from failing on a
# fresh database; --no-owner makes the connecting role (the apps' role) own what it creates.
#   sh deploy/scripts/restore.sh /var/backups/gatehouse/2026-11-26/auth.dump "$AUTH_DATABASE_URL"
set -eu
[ "$#" -eq 2 ] || { echo "restore: DUMP DATABASE_URL" >&2; exit 1; }
pg_restore --clean --if-exists --no-owner --exit-on-error --dbname="$2" "$1"
