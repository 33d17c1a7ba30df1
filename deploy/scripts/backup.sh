#!/bin/sh
# Dumps the three databases into DIRECTORY (auth.dump, api.dump, client.dump), in PostgreSQL's
# custom format. The auth dump holds sealed secrets: useless without AUTH_ENCRYPTION_KEYS, which
# is kept elsewhere.
#   sh deploy/scripts/backup.sh /var/backups/gatehouse/$(date +%F)
set -eu
[ "$#" -eq 1 ] || { echo "backup: DIRECTORY" >&2; exit 1; }
mkdir -p "$1"
pg_dump --format=custom --file="$1/auth.dump" "$AUTH_DATABASE_URL"
pg_dump --format=custom --file="$1/api.dump" "$API_DATABASE_URL"
pg_dump --format=custom --file="$1/client.dump" "$CLIENT_DATABASE_URL"
